"""ResNet-50's batch norms under inference, for Nsight Compute: one forward pass each of
channels-last AMP fp16 at batch 1 and 256, and of channels-first FP32 at batch 1 (no profiler of
its own; cuDNN's heuristic picks, no benchmark mode).

  ncu --kernel-name regex:bn_fw_inf --section InstructionStats ... python3 validation/gpu/bn_inference.py
"""
import torch
import torchvision

model = torchvision.models.resnet50(weights=None).cuda().eval()
cl = model.to(memory_format=torch.channels_last)
for batch in (1, 256):
    x = torch.randn(batch, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    with torch.inference_mode(), torch.autocast("cuda", dtype=torch.float16):
        cl(x)
model = model.to(memory_format=torch.contiguous_format)
with torch.inference_mode():
    model(torch.randn(1, 3, 224, 224, device="cuda"))
torch.cuda.synchronize()
print("bn_inference: done")

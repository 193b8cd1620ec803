"""The lines every PyTorch measuring script of validation/gpu/ starts its meta.yaml with: the GPU,
its SM count, PyTorch and CUDA versions, and the UTC time of writing."""
import time


def meta_header(torch):
    props = torch.cuda.get_device_properties(0)
    return (f"gpu: \"{props.name}\"\nsms: {props.multi_processor_count}\n"
            f"torch: \"{torch.__version__}\"\ncuda: \"{torch.version.cuda}\"\n"
            f"date_utc: \"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}\"\n")

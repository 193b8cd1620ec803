# Sourced by the run_*_loan.sh scripts once OUT is set: creates OUT, sends everything the script
# prints to OUT/log.txt as well, and defines `say` (a timestamped note on stderr: a step's stdout
# may be its output), `step LIMIT_S COMMAND...` (runs it under timeout, logs start and exit), `left`
# and `start_clock_sampler` (below).
mkdir -p "$OUT" || exit 2
export PYTHONUNBUFFERED=1
START=$(date +%s)
exec > >(tee -a "$OUT/log.txt") 2>&1
say() { echo "[$(( $(date +%s) - START ))s] $*" >&2; }
step() { local cap=$1; shift; say "start (limit ${cap}s): $*"; timeout "$cap" "$@"; say "exit $?: $1 $2"; }
# left: seconds left of the script's LIMIT (the scripts that take one)
left() { echo $(( LIMIT - ($(date +%s) - START) )); }
# start_clock_sampler: the board's nvidia-smi -q (OUT/nvidia-smi.txt), then its clocks, power and
# throttle reasons every 200 ms (OUT/clocks_during.csv) until the script exits or kills $SAMPLER.
start_clock_sampler() {
  nvidia-smi -q >"$OUT/nvidia-smi.txt" 2>&1
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
    --format=csv -lms 200 >"$OUT/clocks_during.csv" 2>&1 &
  SAMPLER=$!
  trap 'kill $SAMPLER 2>/dev/null' EXIT
}

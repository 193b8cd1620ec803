# Sourced by the run_*_loan.sh scripts once OUT is set: creates OUT, sends everything the script
# prints to OUT/log.txt as well, and defines `say` (a timestamped note on stderr: a step's stdout
# may be its output) and `step LIMIT_S COMMAND...` (runs it under timeout, logs start and exit).
mkdir -p "$OUT" || exit 2
export PYTHONUNBUFFERED=1
START=$(date +%s)
exec > >(tee -a "$OUT/log.txt") 2>&1
say() { echo "[$(( $(date +%s) - START ))s] $*" >&2; }
step() { local cap=$1; shift; say "start (limit ${cap}s): $*"; timeout "$cap" "$@"; say "exit $?: $1 $2"; }

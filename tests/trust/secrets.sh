# SPDX-License-Identifier: MIT
# Secrets stay out (issue 7): a job with credentials in its environment and
# on its command line: no value appears in any trace (or, once it exists,
# the report).
# limit: 30
. "$(dirname "$0")/../lib.sh"
cat > "$T/job.py" <<'PY'
import sys, time
def load_checkpoint():
    time.sleep(1.5)
load_checkpoint()
PY
AWS_SECRET_ACCESS_KEY=SECRET-aws-1 HF_TOKEN=SECRET-hf-2 WANDB_API_KEY=SECRET-wandb-3 \
NCCL_IB_KEY=SECRET-nccl-4 RANK=0 "$HT" run --dir "$T/a" --timeout 0.5 -- \
	/usr/bin/python3 "$T/job.py" --token=SECRET-tok-5 --api-key SECRET-key-6 --password=SECRET-pw-7 \
	HF_TOKEN=SECRET-hf-8 --lr=0.1 >/dev/null 2>&1
check "the job was traced, with a dump" tq "$T/a" 'len(proc(rank=0).dumps) >= 1'
check "no secret value in any trace" sh -c "! grep -r SECRET '$T/a'"
check "the command line keeps the names, masks the values" tq "$T/a" 'proc(rank=0).header["cmdline"][2:] == ["--token=***", "--api-key", "***", "--password=***", "HF_TOKEN=***", "--lr=0.1"]'
"$HT" report "$T/a" >"$T/report.txt" 2>&1
"$HT" report --json "$T/a" >"$T/report.json" 2>&1
check "no secret value in the report" sh -c "! grep SECRET '$T/report.txt' '$T/report.json'"
finish

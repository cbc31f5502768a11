#!/usr/bin/env python3
"""A simulated device with injected faults, for farm_test only: runs the
command after `--` (pto-run on the simulator) unless the program's entry in
$FARM_FAULTS says otherwise. FARM_FAULTS is "stem=fault,...": "crash" kills
this process with SIGSEGV before running; "slow:F" runs and then multiplies
every time in the recorded golden (the last argument's --record-golden=) by F,
as a chip that got slower would record them."""

import os
import re
import signal
import subprocess
import sys


def main(argv):
  cmd = argv[argv.index("--") + 1:]
  program = os.path.basename(cmd[1])[:-len(".pto")]
  faults = dict(f.split("=", 1) for f in os.environ.get("FARM_FAULTS", "").split(",") if f)
  fault = faults.get(program, "")
  if fault == "crash":
    os.kill(os.getpid(), signal.SIGSEGV)
  rc = subprocess.call(cmd)
  if rc != 0 or not fault.startswith("slow:"):
    return rc
  factor = float(fault[len("slow:"):])
  out = [a for a in cmd if a.startswith("--record-golden=")][0].split("=", 1)[1]
  with open(out) as f:
    text = f.read()
  text = re.sub(r"^(\s*(?:total_ps|max_ps|start_ps|end_ps|sim_time_ps):\s*)(\d+)$",
                lambda m: "%s%d" % (m.group(1), int(int(m.group(2)) * factor)), text, flags=re.M)
  with open(out, "w") as f:
    f.write(text)
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))

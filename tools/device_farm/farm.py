#!/usr/bin/env python3
"""The nightly device-farm runner (docs/hw.md, "The nightly device farm").

One night: discover the devices; build (--config=ascend on a device
machine); run the requires-hw tests; run every golden program on devices it
has locked, recording a golden per program; compare each with the
simulator's golden of the same program (identity and data) and with the
previous night's (data and per-kernel time); write summary.md, junit.xml and
trend.json into --out; keep tonight's goldens under --history for the next
night. Exit status 0 when nothing failed, 1 on a regression or any failure,
2 on a usage error.

With --devices=sim:N the "devices" are simulated chips and the programs run
on the simulator through pto-run: how CI tests the runner.
"""

import argparse
import datetime
import glob
import json
import os
import shlex
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import devices as devices_lib  # pylint: disable=g-import-not-at-top
import goldens  # pylint: disable=g-import-not-at-top
import report  # pylint: disable=g-import-not-at-top

HW_BUILD = "bazel build --config=ascend //..."
# requires-hw tests are also manual, which //... never expands to: name them.
HW_TESTS = ("bazel test --config=ascend --test_tag_filters=requires-hw "
            "$(bazel query 'attr(tags, \"requires-hw\", tests(//...))')")
SIM_RUN = ("{pto_run} {program} --platform={platform} --ranks={ranks} "
           "--record-golden={out}")
# pto-run --backend=hw on the locked devices (docs/hw.md); {kernel_dir} from --kernel-dir.
HW_RUN = ("ASCEND_RT_VISIBLE_DEVICES={devices} {pto_run} {program} --platform={platform} "
          "--ranks={ranks} --backend=hw --kernel-dir={kernel_dir} --record-golden={out}")


def parse_args(argv):
  p = argparse.ArgumentParser(prog="farm.py", description=__doc__.split("\n\n")[0])
  p.add_argument("--workspace", required=True, help="the checkout (bazel workspace)")
  p.add_argument("--out", required=True, help="directory for tonight's report")
  p.add_argument("--history", required=True,
                 help="directory kept across nights: <night>/ goldens and trend.json")
  p.add_argument("--devices", default="ascend", help="'ascend' (/dev/davinci*) or 'sim:N'")
  p.add_argument("--dev-dir", default="/dev", help=argparse.SUPPRESS)
  p.add_argument("--lock-dir", default="/var/lock/pto-device-farm")
  p.add_argument("--lock-wait", type=float, default=600,
                 help="seconds to wait for a locked device before skipping")
  p.add_argument("--night", default=datetime.datetime.utcnow().strftime("%Y-%m-%d"))
  p.add_argument("--goldens", default="testing/golden/data",
                 help="the simulator's goldens: one program each (workspace-relative)")
  p.add_argument("--program", action="append", default=[],
                 help="run only these golden stems (repeatable)")
  p.add_argument("--build-cmd", default=None,
                 help="default: '%s' on ascend, none on sim" % HW_BUILD)
  p.add_argument("--test-cmd", default=None,
                 help="default: '%s' on ascend, none on sim" % HW_TESTS)
  p.add_argument("--run-cmd", default=None,
                 help="template run per program; fields {pto_run} {program} {platform} "
                 "{ranks} {devices} {kernel_dir} {out}. Default on sim: '%s'; on ascend, "
                 "with --kernel-dir: '%s'" % (SIM_RUN, HW_RUN))
  p.add_argument("--kernel-dir", default=None,
                 help="on ascend: DIR/<kernel>.o, the AIV binary of every kernel the golden "
                 "programs launch (pto-run --kernel-dir)")
  p.add_argument("--pto-run", default="bazel-bin/tools/pto-run")
  p.add_argument("--pto-golden", default="bazel-bin/tools/pto-golden")
  p.add_argument("--tolerance", type=float, default=0.05,
                 help="allowed slow-down of a kernel against the previous night")
  p.add_argument("--run-timeout", type=float, default=3600)
  return p.parse_args(argv)


def ws_path(args, path):
  return path if os.path.isabs(path) else os.path.join(args.workspace, path)


def run_shell(cmd, cwd, timeout, env=None):
  """Runs cmd; returns (ok, message, output)."""
  start = time.monotonic()
  try:
    proc = subprocess.run(cmd, shell=True, cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=timeout, env=env)
  except subprocess.TimeoutExpired as e:
    out = (e.output or b"").decode(errors="replace")
    return False, "timed out after %g s" % timeout, out, time.monotonic() - start
  out = proc.stdout.decode(errors="replace")
  if proc.returncode < 0:
    return False, "crashed: %s" % signal.Signals(-proc.returncode).name, out, time.monotonic() - start
  if proc.returncode > 128 and proc.returncode - 128 in signal.valid_signals():
    # A shell reports a child killed by a signal as 128 + signal.
    return False, "crashed: %s" % signal.Signals(proc.returncode - 128).name, out, time.monotonic() - start
  if proc.returncode != 0:
    return False, "exited with status %d" % proc.returncode, out, time.monotonic() - start
  return True, "", out, time.monotonic() - start


def tail(text, lines=40):
  return "\n".join(text.rstrip().splitlines()[-lines:])


def program_base(args, program):
  """Where a golden's program is, the source tree or among the rendered
  ones: the directory to run from, so the program keeps the relative path
  the golden names (pto-run records it as given)."""
  for base in (args.workspace, os.path.join(args.workspace, "bazel-bin")):
    if os.path.exists(os.path.join(base, program)):
      return base
  return None


def previous_golden(args, stem):
  nights = sorted(d for d in os.listdir(args.history)
                  if d < args.night and os.path.isdir(os.path.join(args.history, d)))
  for night in reversed(nights):
    path = os.path.join(args.history, night, stem + ".textproto")
    if os.path.exists(path):
      return night, path
  return None, None


def compare_data(args, expected, actual):
  """pto-golden compare without timing: identity and outputs."""
  cmd = "%s compare %s %s --notiming" % (shlex.quote(ws_path(args, args.pto_golden)),
                                         shlex.quote(expected), shlex.quote(actual))
  ok, msg, out, _ = run_shell(cmd, args.workspace, 600)
  return ok, out if not ok else ""


def run_program(args, backend, devs, stem, sim_golden_path, timing_rows, trend_kernels):
  """Runs one golden program on locked devices; returns a report.Case."""
  name = "program " + stem
  try:
    sim = goldens.read(sim_golden_path)
  except goldens.GoldenError as e:
    return report.Case(name, report.FAILED, str(e))
  if args.run_cmd is None and backend == "ascend" and args.kernel_dir is None:
    return report.Case(name, report.SKIPPED,
                       "no --kernel-dir (or --run-cmd): the kernels' AIV binaries are not built "
                       "by the workspace yet (docs/hw.md)")
  base = program_base(args, sim["program"])
  if base is None:
    return report.Case(name, report.FAILED, "program %s not found (build it first)" % sim["program"])
  ranks = int(sim["ranks"])
  if ranks > len(devs):
    return report.Case(name, report.SKIPPED, "needs %d devices, %d discovered" % (ranks, len(devs)))
  chosen = devs[:ranks]
  out_dir = os.path.join(args.out, "goldens")
  os.makedirs(out_dir, exist_ok=True)
  out = os.path.join(out_dir, stem + ".textproto")
  template = args.run_cmd or (HW_RUN if backend == "ascend" else SIM_RUN)
  cmd = template.format(
      pto_run=shlex.quote(ws_path(args, args.pto_run)), program=shlex.quote(sim["program"]),
      platform=sim["platform"], ranks=ranks,
      devices=",".join(str(devices_lib.device_index(d)) for d in chosen),
      kernel_dir=shlex.quote(ws_path(args, args.kernel_dir or ".")), out=shlex.quote(out))
  try:
    with devices_lib.DeviceLocks(args.lock_dir, chosen, args.lock_wait,
                                 "farm night %s program %s" % (args.night, stem)):
      ok, msg, output, seconds = run_shell(cmd, base, args.run_timeout)
  except devices_lib.LockBusy as e:
    return report.Case(name, report.SKIPPED, "skipped: %s" % e)
  if not ok:
    return report.Case(name, report.FAILED, "the run %s" % msg,
                       "$ %s\n%s" % (cmd, tail(output)), seconds)
  try:
    today = goldens.read(out)
  except goldens.GoldenError as e:
    return report.Case(name, report.FAILED, str(e), tail(output), seconds)
  problems = []
  details = []
  same, diff = compare_data(args, sim_golden_path, out)
  if not same:
    problems.append("differs from the simulator's golden")
    details.append(diff)
  prev_night, prev_path = previous_golden(args, stem)
  prev = goldens.read(prev_path) if prev_path else None
  if prev_path:
    same, diff = compare_data(args, prev_path, out)
    if not same:
      problems.append("data differs from night %s" % prev_night)
      details.append(diff)
  for kernel, t in sorted(today["kernels"].items()):
    trend_kernels["%s:%s" % (stem, kernel)] = t
    before = prev["kernels"].get(kernel) if prev else None
    sim_t = sim["kernels"].get(kernel)
    status = "new" if before is None else "ok"
    if before is not None and t["total_ps"] > before["total_ps"] * (1 + args.tolerance):
      status = "REGRESSION"
      problems.append("%s is %.1f %% slower than night %s (tolerance %g %%)" % (
          kernel, (t["total_ps"] / before["total_ps"] - 1) * 100, prev_night,
          args.tolerance * 100))
    timing_rows.append((stem, kernel, before["total_ps"] if before else None, t["total_ps"],
                        sim_t["total_ps"] if sim_t else None, status))
  if prev:
    for kernel in sorted(set(prev["kernels"]) - set(today["kernels"])):
      problems.append("kernel %s of night %s did not run" % (kernel, prev_night))
  goldens.copy(out, os.path.join(args.history, args.night))
  if problems:
    return report.Case(name, report.FAILED, "; ".join(problems), "\n".join(details), seconds)
  return report.Case(name, report.PASSED,
                     "compared with night %s" % prev_night if prev_night else "first night",
                     seconds=seconds)


def run_step(args, name, cmd, devs):
  """The build or the requires-hw tests, holding every device."""
  if not cmd:
    return None
  try:
    with devices_lib.DeviceLocks(args.lock_dir, devs, args.lock_wait,
                                 "farm night %s %s" % (args.night, name)):
      ok, msg, output, seconds = run_shell(cmd, args.workspace, args.run_timeout)
  except devices_lib.LockBusy as e:
    return report.Case(name, report.SKIPPED, "skipped: %s" % e)
  if ok:
    return report.Case(name, report.PASSED, cmd, seconds=seconds)
  return report.Case(name, report.FAILED, "%s %s" % (cmd, msg), tail(output), seconds)


def main(argv):
  args = parse_args(argv)
  for field in ("workspace", "out", "history", "lock_dir"):
    setattr(args, field, os.path.abspath(getattr(args, field)))
  backend = "sim" if args.devices.startswith("sim:") else "ascend"
  try:
    devs = devices_lib.discover(args.devices, args.dev_dir)
  except ValueError as e:
    print("farm.py: %s" % e, file=sys.stderr)
    return 2
  os.makedirs(args.out, exist_ok=True)
  os.makedirs(args.history, exist_ok=True)
  cases = []
  if not devs:
    cases.append(report.Case("devices", report.FAILED,
                             "no device found (%s)" % args.devices))
  build_cmd = args.build_cmd if args.build_cmd is not None else (HW_BUILD if backend == "ascend" else "")
  test_cmd = args.test_cmd if args.test_cmd is not None else (HW_TESTS if backend == "ascend" else "")
  timing_rows = []
  trend_kernels = {}
  build = run_step(args, "build", build_cmd, devs) if devs else None
  if build:
    cases.append(build)
  if devs and (build is None or build.outcome == report.PASSED):
    tests = run_step(args, "requires-hw tests", test_cmd, devs)
    if tests:
      cases.append(tests)
    stems = sorted(os.path.basename(p)[:-len(".textproto")]
                   for p in glob.glob(os.path.join(ws_path(args, args.goldens), "*.textproto")))
    if args.program:
      missing = sorted(set(args.program) - set(stems))
      for stem in missing:
        cases.append(report.Case("program " + stem, report.FAILED, "no simulator golden"))
      stems = [s for s in stems if s in args.program]
    for stem in stems:
      # One program's failure (even a crash) never stops the others.
      cases.append(run_program(args, backend, devs, stem,
                               os.path.join(ws_path(args, args.goldens), stem + ".textproto"),
                               timing_rows, trend_kernels))
  trend = report.update_trend(os.path.join(args.history, "trend.json"), args.night, backend,
                              trend_kernels)
  with open(os.path.join(args.out, "trend.json"), "w") as f:
    json.dump(trend, f, indent=1, sort_keys=True)
    f.write("\n")
  report.write_junit(os.path.join(args.out, "junit.xml"), args.night, cases)
  report.write_summary(os.path.join(args.out, "summary.md"), args.night, backend, devs, cases,
                       timing_rows)
  failed = [c for c in cases if c.outcome == report.FAILED]
  for c in cases:
    print("%-8s %s%s" % (c.outcome, c.name, ": " + c.message if c.message else ""))
  print("summary: %s" % os.path.join(args.out, "summary.md"))
  return 1 if failed else 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))

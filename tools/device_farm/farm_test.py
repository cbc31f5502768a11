"""CI test of the nightly farm runner in its simulated-chip mode
(--devices=sim:N): an injected timing regression is detected, a held device
lock makes the runner wait or skip with a message, and a crashing run is
reported while the other programs go on. The programs run through pto-run on
the simulator; fake_device.py injects the faults."""

import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import devices  # pylint: disable=g-import-not-at-top
import goldens  # pylint: disable=g-import-not-at-top

WS = os.path.join(os.environ.get("TEST_SRCDIR", ""), "pto")
FARM = os.path.join(HERE, "farm.py")
FAKE = os.path.join(HERE, "fake_device.py")
PROGRAMS = ["all_to_all_v_chip", "all_to_all_v_incore"]
_SIM_GOLDENS = []


def sim_goldens():
  """The simulator's goldens of PROGRAMS, recorded once by pto-run as
  //testing/golden/data records its own (tools/ never depends on testing/, and
  those tests keep the checked-in goldens equal to such a recording)."""
  if not _SIM_GOLDENS:
    d = os.path.join(tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR")), "sim_goldens")
    os.makedirs(d)
    for stem in PROGRAMS:
      subprocess.run([os.path.join(WS, "tools/pto-run"), "examples/%s.pto" % stem,
                      "--platform=a2a3", "--ranks=2",
                      "--record-golden=" + os.path.join(d, stem + ".textproto")],
                     cwd=WS, check=True, stdout=subprocess.DEVNULL)
    _SIM_GOLDENS.append(d)
  return _SIM_GOLDENS[0]


class FarmTest(unittest.TestCase):

  @classmethod
  def setUpClass(cls):
    cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    cls.goldens = os.path.join(cls.tmp, "sim_goldens")
    os.makedirs(cls.goldens)
    for stem in PROGRAMS:
      shutil.copy(os.path.join(sim_goldens(), stem + ".textproto"), cls.goldens)
    cls.history = os.path.join(cls.tmp, "history")
    cls.locks = os.path.join(cls.tmp, "locks")

  def farm(self, night, faults="", extra=(), programs=PROGRAMS):
    out = os.path.join(self.tmp, "out-" + night)
    cmd = [sys.executable, FARM, "--workspace", WS, "--out", out, "--history", self.history,
           "--devices", "sim:2", "--lock-dir", self.locks, "--night", night,
           "--goldens", self.goldens, "--pto-run", "tools/pto-run",
           "--pto-golden", "tools/pto-golden",
           "--run-cmd", "%s %s -- {pto_run} {program} --platform={platform} --ranks={ranks} "
           "--record-golden={out}" % (sys.executable, FAKE)]
    for p in programs:
      cmd += ["--program", p]
    cmd += list(extra)
    env = dict(os.environ, FARM_FAULTS=faults)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    return proc.returncode, proc.stdout.decode(), out

  def junit_cases(self, out):
    root = ET.parse(os.path.join(out, "junit.xml")).getroot()
    cases = {}
    for c in root.iter("testcase"):
      kind = "passed"
      for child in c:
        kind = child.tag
        cases[c.get("name")] = (kind, child.get("message"))
      cases.setdefault(c.get("name"), (kind, None))
    return cases

  def test_1_nights_regression_and_crash(self):
    # Night 1: both programs run and record; nothing to compare timing with.
    rc, log, out = self.farm("2026-11-01")
    self.assertEqual(rc, 0, log)
    cases = self.junit_cases(out)
    self.assertEqual(cases["program all_to_all_v_chip"], ("passed", None), log)
    self.assertTrue(os.path.exists(os.path.join(self.history, "2026-11-01",
                                                "all_to_all_v_incore.textproto")))
    # Night 2: the chip-rail run crashes and the InCore one is 30 % slower.
    rc, log, out = self.farm("2026-11-02",
                             faults="all_to_all_v_chip=crash,all_to_all_v_incore=slow:1.3")
    self.assertEqual(rc, 1, log)
    cases = self.junit_cases(out)
    kind, msg = cases["program all_to_all_v_chip"]
    self.assertEqual(kind, "failure")
    self.assertEqual(msg, "the run crashed: SIGSEGV")
    # The crash did not stop the next program, whose regression is caught.
    kind, msg = cases["program all_to_all_v_incore"]
    self.assertEqual(kind, "failure")
    self.assertIn("slower than night 2026-11-01 (tolerance 5 %)", msg)
    summary = open(os.path.join(out, "summary.md")).read()
    self.assertIn("**Result: FAILED** (0 passed, 2 failed, 0 skipped)", summary)
    self.assertIn("| REGRESSION |", summary)
    self.assertIn("+30.0 %", summary)
    trend = json.load(open(os.path.join(out, "trend.json")))
    self.assertEqual([n["night"] for n in trend["nights"]], ["2026-11-01", "2026-11-02"])
    night1, night2 = (n["kernels"] for n in trend["nights"])
    key = [k for k in night2 if k.startswith("all_to_all_v_incore:")][0]
    self.assertEqual(night2[key]["total_ps"], int(night1[key]["total_ps"] * 1.3))
    self.assertFalse(any(k.startswith("all_to_all_v_chip:") for k in night2))

  def test_2_held_lock_skips_with_a_message(self):
    os.makedirs(self.locks, exist_ok=True)
    with open(os.path.join(self.locks, "sim1.lock"), "w") as f:
      fcntl.flock(f, fcntl.LOCK_EX)
      f.write("pid %d, a developer\n" % os.getpid())
      f.flush()
      rc, log, out = self.farm("2026-11-03", programs=["all_to_all_v_chip"],
                               extra=["--lock-wait", "0.3"])
    self.assertEqual(rc, 0, log)
    kind, msg = self.junit_cases(out)["program all_to_all_v_chip"]
    self.assertEqual(kind, "skipped")
    self.assertEqual(msg, "skipped: device sim1 is locked by another job (pid %d, a developer) "
                     "for more than 0.3 s" % os.getpid())

  def test_3_held_lock_makes_it_wait(self):
    os.makedirs(self.locks, exist_ok=True)
    f = open(os.path.join(self.locks, "sim0.lock"), "w")
    fcntl.flock(f, fcntl.LOCK_EX)
    threading.Timer(1.0, f.close).start()  # the other job ends after 1 s
    # A device that replays the simulator's golden: waiting is what is tested.
    start = time.monotonic()
    rc, log, out = self.farm("2026-11-04", programs=["all_to_all_v_chip"],
                             extra=["--lock-wait", "60", "--run-cmd",
                                    "cp %s {out}" % os.path.join(self.goldens,
                                                                 "all_to_all_v_chip.textproto")])
    self.assertGreaterEqual(time.monotonic() - start, 1.0)
    self.assertEqual(self.junit_cases(out)["program all_to_all_v_chip"][0], "passed", log)
    self.assertEqual(rc, 0, log)


  def test_4_ascend_runs_pto_run_on_the_hw_backend(self):
    # Two NPUs as the driver names them; build and tests replaced (no CANN here).
    dev = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    for name in ["davinci0", "davinci1"]:
      open(os.path.join(dev, name), "w").close()
    base = [sys.executable, FARM, "--workspace", WS, "--history", self.history,
            "--devices", "ascend", "--dev-dir", dev, "--lock-dir", self.locks,
            "--night", "2026-11-05", "--goldens", self.goldens, "--pto-run", "tools/pto-run",
            "--pto-golden", "tools/pto-golden", "--build-cmd", "true", "--test-cmd", "true",
            "--program", "all_to_all_v_chip"]
    # Without the kernels' binaries the program is skipped, saying why.
    out = os.path.join(self.tmp, "out-ascend-nokernels")
    proc = subprocess.run(base + ["--out", out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    self.assertEqual(proc.returncode, 0, proc.stdout)
    self.assertEqual(self.junit_cases(out)["program all_to_all_v_chip"],
                     ("skipped", "no --kernel-dir (or --run-cmd): the kernels' AIV binaries are "
                      "not built by the workspace yet (docs/hw.md)"))
    # With them, the default command is pto-run --backend=hw on the locked
    # devices; this pto-run has no hw backend, which the report shows.
    out = os.path.join(self.tmp, "out-ascend")
    proc = subprocess.run(base + ["--out", out, "--kernel-dir", dev], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT)
    self.assertEqual(proc.returncode, 1, proc.stdout)
    kind, msg = self.junit_cases(out)["program all_to_all_v_chip"]
    self.assertEqual((kind, msg), ("failure", "the run exited with status 2"))
    summary = open(os.path.join(out, "summary.md")).read()
    self.assertIn("ASCEND_RT_VISIBLE_DEVICES=0,1 ", summary)
    self.assertIn("--backend=hw --kernel-dir=" + dev, summary)
    self.assertIn("pto-run: --backend=hw: this pto-run was built without the hw backend", summary)


  def test_5_ascend_runs_every_requires_hw_test_by_name(self):
    # A stand-in `bazel` on PATH records what the default build and test
    # commands ask of it; its query answers with two test labels.
    dev = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    open(os.path.join(dev, "davinci0"), "w").close()
    bindir = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    log = os.path.join(bindir, "calls")
    with open(os.path.join(bindir, "bazel"), "w") as f:
      f.write("#!/bin/sh\nif [ \"$1\" = query ]; then echo //hw/a:x_hw_test; "
              "echo //hw/b:y_hw_test; exit 0; fi\necho \"$@\" >> %s\n" % log)
    os.chmod(os.path.join(bindir, "bazel"), 0o755)
    out = os.path.join(self.tmp, "out-ascend-tests")
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"])
    proc = subprocess.run([sys.executable, FARM, "--workspace", WS, "--history", self.history,
                           "--devices", "ascend", "--dev-dir", dev, "--lock-dir", self.locks,
                           "--night", "2026-11-06", "--goldens", self.goldens, "--out", out,
                           "--program", "all_to_all_v_chip"],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    self.assertEqual(proc.returncode, 0, proc.stdout)
    with open(log) as f:
      calls = f.read().splitlines()
    self.assertEqual(calls, [
        "build --config=ascend //...",
        "test --config=ascend --test_tag_filters=requires-hw //hw/a:x_hw_test //hw/b:y_hw_test",
    ])


class DevicesTest(unittest.TestCase):

  def test_discovers_npus_and_sim_chips(self):
    d = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    for name in ["davinci1", "davinci0", "davinci10", "davinci_manager", "hisi_hdc"]:
      open(os.path.join(d, name), "w").close()
    self.assertEqual(devices.discover("ascend", d), ["npu0", "npu1", "npu10"])
    self.assertEqual(devices.discover("sim:3"), ["sim0", "sim1", "sim2"])
    with self.assertRaisesRegex(ValueError, "--devices=sim:N needs N >= 1, got 'sim:0'"):
      devices.discover("sim:0")
    with self.assertRaisesRegex(ValueError, "--devices must be 'ascend' or 'sim:N', got 'gpu'"):
      devices.discover("gpu")

  def test_usage_error_exits_2(self):
    proc = subprocess.run([sys.executable, FARM, "--workspace", WS, "--out", "/tmp/x",
                           "--history", "/tmp/y", "--devices", "gpu"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    self.assertEqual(proc.returncode, 2)
    self.assertIn(b"farm.py: --devices must be 'ascend' or 'sim:N', got 'gpu'", proc.stderr)


class GoldensTest(unittest.TestCase):

  def test_reads_identity_and_kernel_times(self):
    g = goldens.read(os.path.join(sim_goldens(), "all_to_all_v_chip.textproto"))
    self.assertEqual(g["program"], "examples/all_to_all_v_chip.pto")
    self.assertEqual(g["ranks"], 2)
    self.assertIn("stage_step", g["kernels"])
    self.assertGreater(g["kernels"]["stage_step"]["total_ps"], 0)

  def test_a_golden_without_program_is_an_error(self):
    path = os.path.join(tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR")), "x.textproto")
    with open(path, "w") as f:
      f.write('platform: "a2a3"\n')
    with self.assertRaisesRegex(goldens.GoldenError, "names no program"):
      goldens.read(path)


if __name__ == "__main__":
  unittest.main()

"""Device discovery and one lock per device for the nightly farm runner.

A device is an Ascend NPU (`/dev/davinci<N>`, created by the Ascend driver for
every NPU of the machine) or, in the mode CI tests, a simulated chip
(`sim:<N>` gives sim0 .. sim<N-1>). Locks are flock(2) locks on
`<lock_dir>/<device>.lock`, so they vanish with the process that held them
and two jobs (two runners, or a runner and a developer) never share a device.
"""

import errno
import fcntl
import os
import re
import time

_DAVINCI = re.compile(r"^davinci(\d+)$")


def discover(spec, dev_dir="/dev"):
  """The devices named by `spec`: "ascend" (NPUs under dev_dir) or "sim:N"."""
  if spec.startswith("sim:"):
    count = spec[len("sim:"):]
    if not count.isdigit() or int(count) < 1:
      raise ValueError("--devices=sim:N needs N >= 1, got %r" % spec)
    return ["sim%d" % i for i in range(int(count))]
  if spec == "ascend":
    try:
      names = os.listdir(dev_dir)
    except OSError as e:
      raise ValueError("cannot list %s: %s" % (dev_dir, e.strerror))
    ids = sorted(int(m.group(1)) for m in map(_DAVINCI.match, names) if m)
    return ["npu%d" % i for i in ids]
  raise ValueError("--devices must be 'ascend' or 'sim:N', got %r" % spec)


def device_index(device):
  """The number of a device name: npu3 -> 3, sim1 -> 1."""
  return int(re.sub(r"^\D+", "", device))


class LockBusy(Exception):
  """A device stayed locked by another job for the whole wait."""


class DeviceLocks(object):
  """Holds the flock locks of a set of devices (a context manager)."""

  def __init__(self, lock_dir, devices, wait_s, job):
    self._lock_dir = lock_dir
    self._devices = sorted(devices, key=device_index)  # one order: no deadlock
    self._wait_s = wait_s
    self._job = job
    self._held = []

  def __enter__(self):
    os.makedirs(self._lock_dir, exist_ok=True)
    deadline = time.monotonic() + self._wait_s
    try:
      for d in self._devices:
        self._held.append(self._take(d, deadline))
    except BaseException:
      self.release()
      raise
    return self

  def __exit__(self, *unused):
    self.release()

  def release(self):
    for fd in reversed(self._held):
      os.close(fd)  # closing drops the flock
    self._held = []

  def _take(self, device, deadline):
    path = os.path.join(self._lock_dir, device + ".lock")
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    while True:
      try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        break
      except OSError as e:
        if e.errno not in (errno.EAGAIN, errno.EACCES):
          os.close(fd)
          raise
        if time.monotonic() >= deadline:
          holder = _read_holder(path)
          os.close(fd)
          raise LockBusy("device %s is locked by another job (%s) for more than %g s"
                         % (device, holder, self._wait_s))
        time.sleep(0.1)
    os.ftruncate(fd, 0)
    os.write(fd, ("pid %d, %s\n" % (os.getpid(), self._job)).encode())
    return fd


def _read_holder(path):
  try:
    with open(path) as f:
      text = f.read().strip()
  except OSError:
    text = ""
  return text or "holder unknown"

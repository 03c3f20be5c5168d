"""Run a command on untrusted, model-written code inside a bubblewrap (`bwrap`) sandbox.

There is no unsandboxed path here: when the sandbox cannot work on this machine,
sandbox_problem() says why (one line) and run_sandboxed() raises SandboxUnavailable.

What the sandboxed command sees
    /             an empty root (read-only), holding only:
    system        /usr, /bin, /sbin, /lib, /lib64 read-only (symlinks as symlinks), and
                  of /etc only the dynamic linker's cache and config and the local time
    the python    this interpreter's prefixes (a venv, a pyenv build) read-only, at
                  their own paths; no other import path (not the project's folder)
    /tmp          a private, empty tmpfs (64 MiB), also /dev/shm; a minimal /dev (null,
                  zero, random, tty...) and the /proc of its own pid namespace (its own
                  processes only)
    the workdir   bind-mounted at its own path, and the current directory: read-write,
                  or read-only (`writable=False`: a doc's examples), when nothing the
                  command does may grow the host's disk
    nothing else  no home, no /run or /var/run (no host sockets), no /etc/passwd, no
                  project folder, checkpoint or secrets file
    no network    its own network namespace with only a loopback (`--unshare-net`)
    environment   cleared: PATH, HOME (= the workdir), LANG, TMPDIR, PYTHON* (no bytecode,
                  no user site, the hash seed asked for, unbuffered: a Python started
                  with -I or -E ignores them) and one BLAS/OpenMP thread;
                  bwrap itself is started with PATH only, so its /proc/1/environ shows
                  nothing of the caller's

Who it runs as
    Not as root. bubblewrap started by root keeps every capability for the command unless
    told otherwise, and with CAP_SYS_ADMIN the command can simply remount / read-write
    (tried in this container: it wrote a host file). So:
    - started by root: bwrap sets up the mounts as root, then `setpriv` turns the command
      into uid/gid 65534 (nobody) with no capabilities, an empty bounding set and
      no_new_privs, and `unshare --user` gives it a user namespace of its own so that
      RLIMIT_NPROC counts the processes of this sandbox only (the kernel never enforces
      RLIMIT_NPROC for uid 0, and without the namespace it would count every process
      of uid 65534 on the host). The workdir is handed to uid 65534 (chown).
      Root-only files (mode 0600/0700) stay unreadable to the command.
    - started by anyone else: bwrap's usual unprivileged mode, `--unshare-user
      --disable-userns --cap-drop ALL`; the command keeps the caller's uid.

Limits
    wall clock    `timeout`: the sandbox's pid 1 is killed, which ends every process
                  of its pid namespace; then bwrap itself. `--die-with-parent` ends the
                  sandbox if briefloop dies. `returncode` is None then.
    RLIMIT_CPU    ceil(timeout) + 1 s (a backstop per process; the wall clock rules)
    RLIMIT_AS     memory_mb (1 GiB: Python with numpy starts well within it)
    RLIMIT_FSIZE  file_mb per file written (Python ignores SIGXFSZ: the write raises
                  OSError "File too large")
    RLIMIT_NPROC  128 processes and threads, for this sandbox (see above)
    RLIMIT_NOFILE 1024, RLIMIT_CORE 0
    output        stdout and stderr 1 MiB each, read as they come; beyond it is dropped
                  and a note says how much
    The rlimits are set by util-linux `prlimit` as the last step inside the sandbox, not
    by a preexec_fn: a preexec_fn runs Python between fork and exec, which the subprocess
    docs warn can deadlock in a threaded program (briefloop runs graph nodes in
    threads), and this way the limits bind only the untrusted command, not bwrap.

Not limited: the memory of all processes together (up to 128 x memory_mb; a cgroup
would be needed) and the number of files written to the workdir (each is at most
file_mb; the time limit bounds the rest). No seccomp filter.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import select
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from batch.errors import BriefloopError

SANDBOX_UID = SANDBOX_GID = 65534  # nobody/nogroup: the command's ids when started by root
MAX_PROCESSES = 128  # RLIMIT_NPROC; threads count too
MAX_OPEN_FILES = 1024
OUTPUT_LIMIT_BYTES = 1024 * 1024  # of stdout and of stderr, each
TMPFS_BYTES = 64 * 1024 * 1024  # /tmp and /dev/shm inside
PROBE_TIMEOUT = 20.0
KILL_GRACE = 2.0  # seconds to wait for bwrap once the sandbox's pid 1 is killed
INSTALL_HINT = "bubblewrap (bwrap) is not installed: apt-get install bubblewrap"
_DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"
# What the sandbox sees of the machine, read-only (a symlink stays a symlink): the
# system's programs and libraries, and the files the dynamic linker and time zones read.
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32")
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime")


class SandboxUnavailable(BriefloopError):
    """bubblewrap cannot run a sandbox on this machine (the message says why)."""


@dataclass(frozen=True)
class SandboxResult:
    returncode: int | None  # None when killed on timeout; 128 + N when signal N killed it
    stdout: str
    stderr: str
    timed_out: bool
    seconds: float
    cut: bool = False  # stdout was longer than OUTPUT_LIMIT_BYTES: the rest was dropped


def sandbox_problem() -> str | None:
    """None when the sandbox works here, else a one-line reason. Probed once, by running
    this interpreter in a sandbox and checking that it has no capabilities and a
    read-only root."""
    return _probe()[1]


def run_sandboxed(
    argv: list[str],
    workdir: Path,
    *,
    timeout: float = 10.0,
    memory_mb: int = 1024,
    file_mb: int = 16,
    stdin: str | None = None,
    hash_seed: int = 0,
    writable: bool = True,
) -> SandboxResult:
    """Run `argv` in the sandbox with `workdir` (an existing, fresh folder) as its
    current directory. `writable`: the workdir is the command's HOME and the one place
    on the host's disk it can write; else it is read-only, HOME is the private /tmp, and
    the command writes nothing to the host's disk at all (only to the size-limited
    /tmp and /dev/shm). Started by root, the workdir's contents are handed to uid 65534
    first. `hash_seed`: PYTHONHASHSEED, the order of a set of strings (a Python started
    with -I or -E ignores it)."""
    tools, problem = _probe()
    if problem is not None:
        raise SandboxUnavailable(problem)
    return _run(
        tools,
        argv,
        workdir,
        timeout=timeout,
        memory_mb=memory_mb,
        file_mb=file_mb,
        stdin=stdin,
        hash_seed=hash_seed,
        writable=writable,
    )


# --- the probe -----------------------------------------------------------------------

_PROBE_CODE = """\
import os
caps = [line.split()[1] for line in open("/proc/self/status") if line.startswith("CapEff")]
with open("probe.txt", "w") as f:
    f.write("ok")
print(caps[0], bool(os.statvfs("/").f_flag & os.ST_RDONLY), os.getuid())
"""


@functools.cache
def _probe() -> tuple[dict[str, str], str | None]:
    """The tools' paths, and None or the reason the sandbox does not work here."""
    tools: dict[str, str] = {}
    needed = {"bwrap": INSTALL_HINT, "prlimit": "prlimit (util-linux) is not installed"}
    if os.geteuid() == 0:
        needed["setpriv"] = "setpriv (util-linux) is not installed"
        needed["unshare"] = "unshare (util-linux) is not installed"
    for name, missing in needed.items():
        found = shutil.which(name)
        if found is None:
            return tools, missing
        tools[name] = found
    with tempfile.TemporaryDirectory(prefix="briefloop-sandbox-probe-") as tmp:
        try:
            result = _run(
                tools,
                [sys.executable, "-c", _PROBE_CODE],
                Path(tmp),
                timeout=PROBE_TIMEOUT,
                memory_mb=1024,
                file_mb=1,
                stdin=None,
                hash_seed=0,
                writable=True,
            )
        except (OSError, ValueError) as exc:
            return tools, f"bubblewrap cannot start: {exc}"
        wrote = (Path(tmp) / "probe.txt").is_file()
    if result.timed_out:
        return tools, f"the sandbox probe did not finish within {PROBE_TIMEOUT:g}s"
    if result.returncode != 0:
        said = (result.stderr.strip().splitlines() or ["no message"])[-1]
        return tools, (
            f"bubblewrap cannot run {sys.executable} in a sandbox here "
            f"(exit {result.returncode}): {said}"
        )
    fields = result.stdout.split()
    if len(fields) != 3:
        return tools, f"the sandbox probe printed {result.stdout.strip()[:200]!r}"
    caps, read_only, uid = fields
    if int(caps, 16) != 0:
        return tools, f"the sandboxed process still has capabilities (CapEff {caps})"
    if read_only != "True":
        return tools, "the sandbox's root file system is not read-only"
    if os.geteuid() == 0 and uid == "0":
        return tools, "the sandboxed process runs as root"
    if not wrote:
        return tools, "the sandboxed process cannot write to its working folder"
    return tools, None


# --- the bwrap command line ----------------------------------------------------------


def _inside(path: Path, folder: Path) -> bool:
    return path != folder and path.is_relative_to(folder)


def _exposed_paths(argv0: str) -> set[Path]:
    """Folders beside the system ones the command needs to read: this interpreter's
    prefixes (a venv, a pyenv build) and the command's own prefix. Never an import path
    outside them (a project folder on sys.path under pytest or an editable install)."""
    paths = {sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix}
    program = shutil.which(argv0) if not os.path.isabs(argv0) else argv0
    if program:
        paths.add(os.path.dirname(os.path.dirname(program)))
        paths.add(os.path.dirname(os.path.dirname(os.path.realpath(program))))
    out = set()
    for p in paths:
        resolved = Path(os.path.realpath(p))
        if (
            resolved.is_dir()
            and resolved != Path("/")
            and not any(resolved.is_relative_to(d) for d in SYSTEM_DIRS)
        ):
            out.add(resolved)
    return {p for p in out if not any(_inside(p, q) for q in out)}


def _layout(argv0: str, workdir: Path, writable: bool) -> list[str]:
    """bwrap's mount arguments: an empty root, then only what a Python program needs
    (read-only), a private /tmp, the workdir."""
    args: list[str] = []
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    for f in SYSTEM_FILES:
        args += ["--ro-bind-try", f, f]
    args += [
        "--perms",
        "1777",
        "--size",
        str(TMPFS_BYTES),
        "--tmpfs",
        "/tmp",
        "--perms",
        "1777",
        "--size",
        str(TMPFS_BYTES),
        "--tmpfs",
        "/dev/shm",
    ]
    made: set[Path] = set()

    def parents_of(dest: Path) -> list[str]:
        """--dir for the folders above dest that the empty root lacks (bwrap would
        make them 0700 when it runs as root, and uid 65534 could not pass)."""
        out = []
        for folder in reversed(dest.parents):
            if folder in (Path("/"), Path("/tmp")) or folder in made:
                continue
            made.add(folder)
            out += ["--perms", "0755", "--dir", str(folder)]
        return out

    for p in sorted(_exposed_paths(argv0), key=lambda p: len(p.parts)):
        args += parents_of(p) + ["--ro-bind", str(p), str(p)]
    bind = "--bind" if writable else "--ro-bind"
    args += parents_of(workdir) + [bind, str(workdir), str(workdir)]
    return args + ["--remount-ro", "/"]


def _command(
    tools: dict[str, str],
    argv: list[str],
    workdir: Path,
    *,
    timeout: float,
    memory_mb: int,
    file_mb: int,
    info_fd: int,
    as_root: bool,
    hash_seed: int,
    writable: bool,
) -> list[str]:
    env = {
        "PATH": (f"{os.path.dirname(argv[0])}:" if os.path.isabs(argv[0]) else "") + _DEFAULT_PATH,
        "HOME": str(workdir) if writable else "/tmp",
        "LANG": "C.UTF-8",
        "TMPDIR": "/tmp",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONNOUSERSITE": "1",
        "PYTHONHASHSEED": str(hash_seed),  # the same orders for the same seed
        "PYTHONUNBUFFERED": "1",  # what it printed before a timeout still comes back
        # numeric libraries start one thread per core otherwise, each with its own
        # buffers: on a many-core machine they would not fit RLIMIT_AS/RLIMIT_NPROC
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    cmd = [tools["bwrap"]]
    if not as_root:
        cmd += ["--unshare-user", "--disable-userns", "--cap-drop", "ALL"]
    cmd += [
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-net",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--hostname",
        "sandbox",
        "--die-with-parent",
        "--new-session",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
    ]
    cmd += _layout(argv[0], workdir, writable)
    cmd += ["--chdir", str(workdir), "--clearenv"]
    for key, value in env.items():
        cmd += ["--setenv", key, value]
    cmd += ["--info-fd", str(info_fd), "--"]
    if as_root:
        cmd += [
            tools["setpriv"],
            f"--reuid={SANDBOX_UID}",
            f"--regid={SANDBOX_GID}",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--no-new-privs",
            "--",
            tools["unshare"],
            "--user",
            "--",
        ]
    cpu = math.ceil(timeout) + 1
    cmd += [
        tools["prlimit"],
        f"--cpu={cpu}:{cpu + 1}",
        f"--as={memory_mb * 1024 * 1024}",
        f"--fsize={file_mb * 1024 * 1024}",
        f"--nproc={MAX_PROCESSES}",
        f"--nofile={MAX_OPEN_FILES}",
        "--core=0",
        "--",
    ]
    return cmd + list(argv)


# --- running it ----------------------------------------------------------------------


class _Capture:
    """The first `limit` bytes of a stream; the rest only counted."""

    def __init__(self, limit: int):
        self.limit = limit
        self.data = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = self.limit - len(self.data)
        if room > 0:
            self.data += chunk[:room]
        self.dropped += max(0, len(chunk) - max(room, 0))

    def text(self) -> str:
        text = self.data.decode("utf-8", errors="replace")
        if self.dropped:
            text += (
                f"\n[sandbox: output truncated after {self.limit} bytes, "
                f"{self.dropped} more dropped]\n"
            )
        return text


def _give_to_sandbox_user(workdir: Path) -> None:
    os.lchown(workdir, SANDBOX_UID, SANDBOX_GID)
    for folder, dirs, files in os.walk(workdir):
        for name in (*dirs, *files):
            os.lchown(os.path.join(folder, name), SANDBOX_UID, SANDBOX_GID)


def _check_workdir(workdir: Path) -> Path:
    """The workdir, resolved: a folder inside the temporary folder that holds neither
    this interpreter nor the current directory (it is made writable, and given to
    uid 65534 when briefloop runs as root)."""
    workdir = Path(os.path.realpath(workdir))
    if not workdir.is_dir():
        raise ValueError(f"the sandbox's working folder {workdir} is not a folder")
    temp = Path(os.path.realpath(tempfile.gettempdir()))
    if not _inside(workdir, temp):
        raise ValueError(
            f"the sandbox's working folder {workdir} is not inside {temp}: "
            f"give it a fresh temporary folder"
        )
    for keep in (Path(sys.prefix), Path.home(), Path.cwd()):
        if Path(os.path.realpath(keep)).is_relative_to(workdir):
            raise ValueError(
                f"the sandbox's working folder {workdir} holds {keep}: give "
                f"it a fresh temporary folder"
            )
    return workdir


def _run(
    tools: dict[str, str],
    argv: list[str],
    workdir: Path,
    *,
    timeout: float,
    memory_mb: int,
    file_mb: int,
    stdin: str | None,
    hash_seed: int,
    writable: bool,
) -> SandboxResult:
    if not argv or not all(isinstance(a, str) for a in argv):
        raise ValueError("argv must be a non-empty list of strings")
    if timeout <= 0 or memory_mb <= 0 or file_mb <= 0:
        raise ValueError("timeout, memory_mb and file_mb must be positive")
    workdir = _check_workdir(workdir)
    as_root = os.geteuid() == 0
    if as_root:
        _give_to_sandbox_user(workdir)
    info_r, info_w = os.pipe()
    try:
        cmd = _command(
            tools,
            argv,
            workdir,
            timeout=timeout,
            memory_mb=memory_mb,
            file_mb=file_mb,
            info_fd=info_w,
            as_root=as_root,
            hash_seed=hash_seed,
            writable=writable,
        )
        started = time.monotonic()
        # bwrap itself (pid 1 inside, readable there when not started by root) gets
        # no environment to show: the caller's may hold passwords and DSNs
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(info_w,),
            start_new_session=True,
            cwd="/",
            env={"PATH": _DEFAULT_PATH},
        )
    except BaseException:
        os.close(info_r)
        raise
    finally:
        os.close(info_w)
    out, err, info = (
        _Capture(OUTPUT_LIMIT_BYTES),
        _Capture(OUTPUT_LIMIT_BYTES),
        _Capture(64 * 1024),
    )
    timed_out = False
    try:
        with selectors.DefaultSelector() as sel:
            assert proc.stdout is not None and proc.stderr is not None
            sel.register(proc.stdout, selectors.EVENT_READ, out)
            sel.register(proc.stderr, selectors.EVENT_READ, err)
            sel.register(info_r, selectors.EVENT_READ, info)
            pending = memoryview((stdin or "").encode("utf-8"))
            if proc.stdin is not None:
                if pending:
                    sel.register(proc.stdin, selectors.EVENT_WRITE)
                else:
                    proc.stdin.close()
            deadline = started + timeout
            timed_out = not _pump(sel, proc, pending, deadline)
            if not timed_out:
                try:
                    proc.wait(timeout=max(0.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    timed_out = True
            if timed_out:
                _kill(proc, bytes(info.data))
                # what it wrote before it was stopped: the pipes close as it dies
                _pump(sel, proc, memoryview(b""), time.monotonic() + KILL_GRACE)
    finally:
        if proc.poll() is None:
            _kill(proc, bytes(info.data))
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        os.close(info_r)
    return SandboxResult(
        returncode=None if timed_out else proc.returncode,
        stdout=out.text(),
        stderr=err.text(),
        timed_out=timed_out,
        seconds=time.monotonic() - started,
        cut=out.dropped > 0,
    )


def _pump(
    sel: selectors.BaseSelector,
    proc: subprocess.Popen[bytes],
    pending: memoryview,
    deadline: float,
) -> bool:
    """Feed stdin and read the outputs until every pipe is closed (True) or the
    deadline passes (False)."""
    sent = 0
    while sel.get_map():
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        for key, _events in sel.select(remaining):
            if key.fileobj is proc.stdin:
                try:
                    sent += os.write(key.fd, pending[sent : sent + select.PIPE_BUF])
                except BrokenPipeError:
                    sent = len(pending)
                if sent >= len(pending):
                    sel.unregister(key.fileobj)
                    with contextlib.suppress(OSError):
                        proc.stdin.close()
                continue
            chunk = os.read(key.fd, 65536)
            if chunk:
                key.data.add(chunk)
            else:
                sel.unregister(key.fileobj)
    return True


def _kill(proc: subprocess.Popen[bytes], info: bytes) -> None:
    """Kill the sandbox's pid 1 (bwrap's init), which takes every process of its pid
    namespace with it; bwrap then exits. bwrap itself if that does not happen."""
    try:
        inner = int(json.loads(info.decode())["child-pid"])
    except (ValueError, KeyError, TypeError):
        inner = None
    if inner is not None and proc.poll() is None:
        with contextlib.suppress(OSError):
            pidfd = os.pidfd_open(inner)
            try:
                # the pidfd pins the process: check it is still bwrap's child
                with open(f"/proc/{inner}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                if ppid == proc.pid:
                    signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            finally:
                os.close(pidfd)
        try:
            proc.wait(timeout=KILL_GRACE)
            return
        except subprocess.TimeoutExpired:
            pass
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()

"""A seccomp-BPF syscall filter, built by hand with struct and installed with ctypes (stdlib only).

Why hand-built: the interpreter is a pyenv build without libseccomp bindings, and the filter is small.
It is installed in each call's child process, after the fork and before any untrusted code runs, so the
executor itself (which must fork) is never filtered. Denied syscalls fail with an errno (EPERM, or ENOSYS
where libc should fall back), which Python turns into a normal exception instead of killing the process.

Only x86_64 is supported; `supported()` says so and the client then reports a weaker mode (loudly).
"""

import ctypes
import errno
import os
import platform
import struct

AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000

# BPF opcodes (linux/filter.h, linux/bpf_common.h).
LD_W_ABS = 0x20  # A <- u32 at offset k of struct seccomp_data
JEQ = 0x15
JSET = 0x45
JGE = 0x35
RET = 0x06

RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000

# struct seccomp_data: int nr; u32 arch; u64 ip; u64 args[6]  (little endian: low word first)
OFF_NR, OFF_ARCH = 0, 4


def _arg_lo(i):
    return 16 + 8 * i


def _arg_hi(i):
    return 16 + 8 * i + 4


# x86_64 syscall numbers (arch/x86/entry/syscalls/syscall_64.tbl).
NR = {
    "open": 2,
    "socket": 41,
    "connect": 42,
    "accept": 43,
    "bind": 49,
    "listen": 50,
    "socketpair": 53,
    "clone": 56,
    "fork": 57,
    "vfork": 58,
    "execve": 59,
    "kill": 62,
    "truncate": 76,
    "rename": 82,
    "mkdir": 83,
    "rmdir": 84,
    "creat": 85,
    "link": 86,
    "unlink": 87,
    "symlink": 88,
    "chmod": 90,
    "fchmod": 91,
    "chown": 92,
    "fchown": 93,
    "lchown": 94,
    "ptrace": 101,
    "setuid": 105,
    "setgid": 106,
    "setreuid": 113,
    "setregid": 114,
    "setgroups": 116,
    "setresuid": 117,
    "setresgid": 119,
    "capset": 126,
    "rt_sigqueueinfo": 129,
    "utime": 132,
    "mknod": 133,
    "personality": 135,
    "ioctl": 16,
    "adjtimex": 159,
    "setrlimit": 160,
    "chroot": 161,
    "acct": 163,
    "settimeofday": 164,
    "mount": 165,
    "umount2": 166,
    "swapon": 167,
    "swapoff": 168,
    "reboot": 169,
    "sethostname": 170,
    "setdomainname": 171,
    "iopl": 172,
    "ioperm": 173,
    "init_module": 175,
    "delete_module": 176,
    "quotactl": 179,
    "setxattr": 188,
    "lsetxattr": 189,
    "fsetxattr": 190,
    "removexattr": 197,
    "lremovexattr": 198,
    "fremovexattr": 199,
    "tkill": 200,
    "lookup_dcookie": 212,
    "clock_settime": 227,
    "tgkill": 234,
    "utimes": 235,
    "kexec_load": 246,
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "openat": 257,
    "mkdirat": 258,
    "mknodat": 259,
    "fchownat": 260,
    "futimesat": 261,
    "unlinkat": 263,
    "renameat": 264,
    "linkat": 265,
    "symlinkat": 266,
    "fchmodat": 268,
    "unshare": 272,
    "utimensat": 280,
    "accept4": 288,
    "rt_tgsigqueueinfo": 297,
    "perf_event_open": 298,
    "prlimit64": 302,
    "name_to_handle_at": 303,
    "open_by_handle_at": 304,
    "clock_adjtime": 305,
    "setns": 308,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "kcmp": 312,
    "finit_module": 313,
    "renameat2": 316,
    "kexec_file_load": 320,
    "bpf": 321,
    "execveat": 322,
    "userfaultfd": 323,
    "pkey_mprotect": 329,
    "pidfd_send_signal": 424,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "pidfd_open": 434,
    "clone3": 435,
    "openat2": 437,
    "pidfd_getfd": 438,
    "process_madvise": 440,
    "mount_setattr": 442,
    "landlock_create_ruleset": 444,
    "landlock_add_rule": 445,
    "landlock_restrict_self": 446,
    "shmget": 29,
    "shmat": 30,
    "shmctl": 31,
    "semget": 64,
    "semop": 65,
    "semctl": 66,
    "shmdt": 67,
    "msgget": 68,
    "msgsnd": 69,
    "msgrcv": 70,
    "msgctl": 71,
    "semtimedop": 220,
    "mq_open": 240,
    "mq_unlink": 241,
    "mq_timedsend": 242,
    "mq_timedreceive": 243,
    "mq_notify": 244,
    "mq_getsetattr": 245,
}

# Always denied: network, new programs, processes AND threads (clone: a call is one thread, so once it
# has closed its result pipe nothing of it can still run and write to the scratch directory), other
# processes' memory, kernel and namespace administration, raising limits, io_uring (bypasses seccomp).
DENY_ALWAYS = [
    "socket",
    "socketpair",
    "connect",
    "accept",
    "accept4",
    "bind",
    "listen",
    "clone",
    "fork",
    "vfork",
    "execve",
    "execveat",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "pidfd_open",
    "pidfd_getfd",
    "pidfd_send_signal",
    "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
    "process_madvise",
    "personality",
    "setrlimit",
    "setuid",
    "setgid",
    "setreuid",
    "setregid",
    "setgroups",
    "setresuid",
    "setresgid",
    "capset",
    "chroot",
    "mount",
    "umount2",
    "unshare",
    "setns",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "swapon",
    "swapoff",
    "reboot",
    "sethostname",
    "setdomainname",
    "iopl",
    "ioperm",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "acct",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "quotactl",
    "lookup_dcookie",
    "name_to_handle_at",
    "open_by_handle_at",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "keyctl",
    "add_key",
    "request_key",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "landlock_create_ruleset",
    "landlock_add_rule",
    "landlock_restrict_self",
    # System V IPC and POSIX message queues: their objects belong to the sandbox's IPC namespace, which
    # the executor and every call share, so they would outlive a call and carry data into the next one.
    "shmget",
    "shmat",
    "shmctl",
    "shmdt",
    "semget",
    "semop",
    "semctl",
    "semtimedop",
    "msgget",
    "msgsnd",
    "msgrcv",
    "msgctl",
    "mq_open",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedreceive",
    "mq_notify",
    "mq_getsetattr",
]
# Denied only when no read-only root isolates the file system (mode 'seccomp' without bubblewrap):
# every way of changing the file system. Opens are checked by their flags below.
DENY_FS_WRITES = [
    "creat",
    "truncate",
    "rename",
    "renameat",
    "renameat2",
    "mkdir",
    "mkdirat",
    "rmdir",
    "link",
    "linkat",
    "symlink",
    "symlinkat",
    "unlink",
    "unlinkat",
    "chmod",
    "fchmod",
    "fchmodat",
    "chown",
    "fchown",
    "lchown",
    "fchownat",
    "mknod",
    "mknodat",
    "utime",
    "utimes",
    "utimensat",
    "futimesat",
    "setxattr",
    "lsetxattr",
    "fsetxattr",
    "removexattr",
    "lremovexattr",
    "fremovexattr",
]
# ENOSYS rather than EPERM: glibc then falls back to the older call we can inspect (clone3 -> clone).
ENOSYS_ALWAYS = ["clone3", "openat2"]

TIOCSTI = 0x5412  # push bytes into a terminal's input queue: a classic sandbox escape
O_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def supported():
    """Whether this machine can run the filter (x86_64 Linux with prctl)."""
    return platform.system() == "Linux" and platform.machine() in ("x86_64", "AMD64")


class _Asm:
    """A tiny BPF assembler with forward labels, so conditional blocks can be written inline."""

    def __init__(self):
        self.ins = []  # (code, jt, jf, k) with jt/jf possibly label names
        self.labels = {}

    def op(self, code, k, jt=0, jf=0):
        self.ins.append([code, jt, jf, k])

    def label(self, name):
        self.labels[name] = len(self.ins)

    def assemble(self):
        out = []
        for i, (code, jt, jf, k) in enumerate(self.ins):

            def rel(t):
                if isinstance(t, str):
                    off = self.labels[t] - i - 1  # noqa: B023 (rel is called at once, in this iteration)
                    if not 0 <= off <= 255:
                        raise ValueError(f"BPF jump to {t} out of range ({off})")
                    return off
                return t

            out.append(struct.pack("HBBI", code, rel(jt), rel(jf), k & 0xFFFFFFFF))
        return b"".join(out)


def build_filter(pid, allow_fs_writes):
    """The BPF program for a call child with process id `pid` (kill/tgkill allowed to itself only)."""
    return _assemble(pid, allow_fs_writes)[0]


def _assemble(pid, allow_fs_writes):
    """(program bytes, byte offset of the 32-bit constant holding `pid`)."""
    eperm = RET_ERRNO | errno.EPERM
    a = _Asm()
    a.op(LD_W_ABS, OFF_ARCH)
    a.op(JEQ, AUDIT_ARCH_X86_64, jt=1, jf=0)
    a.op(RET, RET_KILL_PROCESS)  # foreign ABI (e.g. int 0x80 i386 calls): no mercy
    a.op(LD_W_ABS, OFF_NR)
    a.op(JGE, X32_SYSCALL_BIT, jt="eperm", jf=0)  # the x32 ABI aliases every syscall
    deny = DENY_ALWAYS + ([] if allow_fs_writes else DENY_FS_WRITES)
    for name in deny:
        a.op(JEQ, NR[name], jt="eperm", jf=0)
    for name in ENOSYS_ALWAYS:
        a.op(JEQ, NR[name], jt="enosys", jf=0)
    # Conditional rules: each jumps to a block that decides and returns.
    for name in ("kill", "tkill", "tgkill"):
        a.op(JEQ, NR[name], jt="self_only", jf=0)
    a.op(JEQ, NR["prlimit64"], jt="prlimit", jf=0)
    a.op(JEQ, NR["ioctl"], jt="ioctl", jf=0)
    if not allow_fs_writes:
        a.op(JEQ, NR["open"], jt="open", jf=0)
        a.op(JEQ, NR["openat"], jt="openat", jf=0)
    a.op(RET, RET_ALLOW)

    # kill(pid, sig) / tkill(tid, sig) / tgkill(tgid, tid, sig): only this process itself.
    a.label("self_only")
    a.op(LD_W_ABS, _arg_hi(0))
    a.op(JEQ, 0, jt=0, jf="eperm")
    a.op(LD_W_ABS, _arg_lo(0))
    pid_index = len(a.ins)
    a.op(JEQ, pid, jt="allow", jf="eperm")
    # prlimit64(pid, resource, new, old): reading is fine, setting is not (new must be NULL).
    a.label("prlimit")
    a.op(LD_W_ABS, _arg_lo(2))
    a.op(JEQ, 0, jt=0, jf="eperm")
    a.op(LD_W_ABS, _arg_hi(2))
    a.op(JEQ, 0, jt="allow", jf="eperm")
    # ioctl(fd, TIOCSTI, ...) would type commands into the host's terminal.
    a.label("ioctl")
    a.op(LD_W_ABS, _arg_lo(1))
    a.op(JEQ, TIOCSTI, jt="eperm", jf="allow")
    if not allow_fs_writes:
        a.label("open")  # open(path, flags, mode)
        a.op(LD_W_ABS, _arg_lo(1))
        a.op(JSET, O_WRITE_FLAGS, jt="eperm", jf="allow")
        a.label("openat")  # openat(dirfd, path, flags, mode)
        a.op(LD_W_ABS, _arg_lo(2))
        a.op(JSET, O_WRITE_FLAGS, jt="eperm", jf="allow")

    a.label("allow")
    a.op(RET, RET_ALLOW)
    a.label("eperm")
    a.op(RET, eperm)
    a.label("enosys")
    a.op(RET, RET_ERRNO | errno.ENOSYS)
    return a.assemble(), pid_index * 8 + 4  # struct sock_filter: u16 code, u8 jt, u8 jf, u32 k


PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_libc = None


def prepare():
    """Load libc once in the parent, so the call child does not have to (it cannot open much later)."""
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    return _libc


class Prepared:
    """The filter assembled once, in the executor, into a buffer every forked child inherits.

    A child only writes its own pid into the one instruction that names it and makes one prctl call;
    assembling the ~150 instructions in Python per child cost ~0.6 ms (most of the old attach time).
    """

    def __init__(self, allow_fs_writes):
        program, self.pid_offset = _assemble(0, allow_fs_writes)
        self.buf = ctypes.create_string_buffer(program, len(program))
        self.prog = _SockFprog(len(program) // 8, ctypes.addressof(self.buf))
        self.prog_addr = ctypes.addressof(self.prog)
        self.libc = prepare()

    def for_pid(self, pid):
        """Write `pid` into the program; returns the program's bytes, which are build_filter(pid)'s."""
        self.buf[self.pid_offset : self.pid_offset + 4] = struct.pack("<I", pid)
        return self.buf.raw

    def install(self, pid):
        """Apply the filter to the calling process (irreversible); `pid` must be os.getpid(). The
        executor has set no-new-privs already (inherited), which the kernel requires for this."""
        self.for_pid(pid)
        if self.libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, self.prog_addr, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")


def install(allow_fs_writes):
    """Build and apply the filter for the calling process (irreversible)."""
    install_program(build_filter(os.getpid(), allow_fs_writes))


def install_program(program):
    """Apply a program from build_filter."""
    libc = prepare()
    buf = ctypes.create_string_buffer(program, len(program))
    prog = _SockFprog(len(program) // 8, ctypes.addressof(buf))
    _install(libc, ctypes.addressof(prog))


def _install(libc, prog_addr):
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog_addr, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")

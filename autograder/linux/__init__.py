"""Linux as the sandbox reaches it through ctypes: one handle on the C library, and every number the kernel
reads (system calls, prctl options, flags, structures), each defined here once under its name in the kernel's
headers.

    libc.py      the C library, opened once; prctl and raw system calls that raise OSError with the errno
    numbers.py   system-call numbers by name, per architecture (x86_64, aarch64)
    flags.py     prctl options, securebits, capabilities, clone/unshare, mount, keyctl, fcntl and ioctl values
    seccomp.py   seccomp filters: classic BPF, struct seccomp_data, return values; installing one
    landlock.py  Landlock's access rights by ABI, its structures and its three system calls

Facts only. What the sandbox does with them (which calls a worker may make, which files it may read) is
autograder/sandbox/.
"""

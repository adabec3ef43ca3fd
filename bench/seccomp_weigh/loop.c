/* n raw system calls in a C loop; returns the CPU nanoseconds (user+system) this thread spent on them: preemption by other jobs is not counted. gcc -O2 -shared -fPIC loop.c -o libloop.so */
#define _GNU_SOURCE
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
long loop(long nr, long a0, long a1, long a2, long a3, long n) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    for (long i = 0; i < n; i++) syscall(nr, a0, a1, a2, a3, 0, 0);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    return (t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec);
}

/* The capture library's test program: writes through two distinct call
 * paths (path_a, path_b), each several times, to two files; then times
 * N one-byte pwrites for the overhead per call, issued four calls deep as
 * in an application (a write from main itself leaves the stack scan fewer
 * than 5 return addresses to find, so it reads its whole 4 KiB bound).
 * Run it with and without the library: the difference is the overhead.
 * Usage: pc_paths DIR [N] */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) static void path_a(int fd, int i) {
    char buf[4096];
    memset(buf, 'a' + i, sizeof buf);
    if (pwrite(fd, buf, sizeof buf, (off_t)i * 4096) < 0) exit(1);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void path_b(int fd, int i) {
    char buf[4096];
    memset(buf, 'A' + i, sizeof buf);
    if (pwrite(fd, buf, sizeof buf, (off_t)i * 4096) < 0) exit(1);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static int timed(int fd, long n) {
    for (long i = 0; i < n; i++) if (pwrite(fd, "x", 1, 0) != 1) return 1;
    __asm__ volatile("" ::: "memory");
    return 0;
}
__attribute__((noinline)) static int level2(int fd, long n) { int r = timed(fd, n); __asm__ volatile("" ::: "memory"); return r; }
__attribute__((noinline)) static int level1(int fd, long n) { int r = level2(fd, n); __asm__ volatile("" ::: "memory"); return r; }

static char a[4096], b[4096], t[4096];

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    snprintf(a, sizeof a, "%s/a.dat", argv[1]);
    snprintf(b, sizeof b, "%s/b.dat", argv[1]);
    snprintf(t, sizeof t, "%s/t.dat", argv[1]);
    int fa = open(a, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int fb = open(b, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fa < 0 || fb < 0) return 1;
    for (int i = 0; i < 4; i++) { path_a(fa, i); path_b(fb, i); }
    fsync(fa); close(fa); close(fb);
    long n = argc > 2 ? atol(argv[2]) : 0;
    if (n > 0) {
        int ft = open(t, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        struct timespec s, e;
        clock_gettime(CLOCK_MONOTONIC, &s);
        if (level1(ft, n)) return 1;
        clock_gettime(CLOCK_MONOTONIC, &e);
        close(ft);
        double ns = ((e.tv_sec - s.tv_sec) * 1e9 + (e.tv_nsec - s.tv_nsec)) / n;
        printf("ns_per_pwrite %.1f\n", ns);
    }
    return 0;
}

/* ftlsim's program-context capture library (LD_PRELOAD).
 *
 * Interposes the calls that change file data or names (write, pwrite,
 * writev, pwritev and their 64-bit variants, fsync, fdatasync, ftruncate,
 * fallocate, unlink, unlinkat, rename) and logs one line per call to the
 * file named by FTLSIM_CAPTURE_OUT:
 *
 *   E time_ns pid tid op dev ino offset len pc_scan pc_walk
 *   F dev ino path            (the first time a file is seen)
 *   N time_ns pid tid op dev ino pc_scan pc_walk path   (unlink, unlinkat, rename)
 *   X time_ns dev ino logical_bytes physical_bytes length_bytes
 *
 * X lines are the file's extents (FIEMAP, only those with a known place on
 * the device) taken after each fsync/fdatasync and before each unlink or
 * rename over a file: `ftlsim device run --capture` joins them with the
 * device's own trace (crates/ftlsim-live/src/join.rs). dev/ino of an N line
 * are 0 when the name was not a regular file.
 *
 * Writes are logged only on regular files. The PC signature is computed
 * the paper's way (scan the user stack for the first 5 words that point
 * into an executable mapping and sum them) and, with FTLSIM_CAPTURE_WALK=1,
 * also by a frame walk (glibc backtrace(), the first 5 frames above this
 * library; 0 otherwise, as the walk costs microseconds). Each address is
 * normalised to (module, offset) -- FNV-1a of the module's path plus the
 * offset from the module's load base -- so that ASLR does not change a
 * signature between runs.
 *
 * Cost per call (docs/real-workloads.md): the file of an fd is cached
 * (dev, inode, regular or not), dropped on close/dup2/dup3 and on open's
 * return; lines go to a per-thread buffer, written out when nearly full,
 * at fsync/fdatasync, at thread exit, before fork and exec, and at exit. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define PC_WORDS 5
#define MAX_MAPS 1024
#define SCAN_WORDS 512 /* 4 KiB of stack: a bound on the cost of a shallow stack */
#define SEEN_SLOTS 8192
#define FD_SLOTS 65536
#define BUF_BYTES (64 * 1024)
#define LINE_MAX_BYTES 1280 /* flush before a line could overflow the buffer */

struct map { uintptr_t start, end, base; uint64_t module; int exec; };
static struct map maps[MAX_MAPS];
static int nmaps;
/* The span of executable module mappings: a cheap first filter. */
static uintptr_t exec_lo = (uintptr_t)-1, exec_hi;
/* The 64 KiB pages that hold executable module code, as an open-addressing
 * set: most stack words are data (heap pointers fall between the modules),
 * and this rejects them in one probe instead of a search of the maps. */
#define XPAGE_SHIFT 16
#define XPAGE_SLOTS 16384
static uintptr_t xpages[XPAGE_SLOTS]; /* page number + 1; 0 = empty */
static int xpages_full; /* too many pages: every word goes to the search */
static int log_fd = -1;
static int walk_on;
static uintptr_t self_start, self_end;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t seen[SEEN_SLOTS];
static pid_t cached_pid;

/* The per-fd cache: state 0 unknown, 1 regular file, 2 something else. */
struct fd_entry { uint64_t dev, ino; uint8_t state; };
static struct fd_entry fds[FD_SLOTS];

/* The per-thread log buffer, registered so that exit flushes every
 * thread's (best effort: a thread still writing at exit may lose lines). */
struct tbuf { struct tbuf *next; size_t len; char data[BUF_BYTES]; };
static struct tbuf *all_bufs;
static pthread_key_t buf_key;
static __thread struct tbuf *my_buf;
static __thread int busy; /* no recursion from our own I/O */
static __thread pid_t cached_tid;
static __thread uintptr_t stack_hi; /* top of this thread's stack */

static uint64_t fnv1a(const char *s) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++) { h ^= (unsigned char)*s; h *= 0x100000001b3ULL; }
    return h;
}

static ssize_t raw_write(int fd, const void *buf, size_t n) {
    return syscall(SYS_write, fd, buf, n);
}

static inline uint32_t xslot(uintptr_t page) {
    return (uint32_t)((page * 0x9E3779B97F4A7C15ULL) >> 50); /* 14 bits */
}

static void xpages_add(uintptr_t start, uintptr_t end) {
    for (uintptr_t pg = start >> XPAGE_SHIFT; pg <= (end - 1) >> XPAGE_SHIFT; pg++) {
        uint32_t i = xslot(pg), n = 0;
        while (xpages[i] && xpages[i] != pg + 1 && n++ < XPAGE_SLOTS) i = (i + 1) & (XPAGE_SLOTS - 1);
        if (n >= XPAGE_SLOTS / 2) { xpages_full = 1; return; }
        xpages[i] = pg + 1;
    }
}

static inline int xpage_maybe(uintptr_t a) {
    if (xpages_full) return 1;
    uintptr_t pg = a >> XPAGE_SHIFT;
    for (uint32_t i = xslot(pg);; i = (i + 1) & (XPAGE_SLOTS - 1)) {
        if (xpages[i] == pg + 1) return 1;
        if (!xpages[i]) return 0;
    }
}

/* Reads /proc/self/maps into `maps` (sorted by address, as the kernel
 * lists them), with each module's lowest mapping as its base. */
static void load_maps(void) {
    int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY);
    if (fd < 0) return;
    static char buf[1 << 18];
    size_t len = 0;
    ssize_t r;
    while (len < sizeof buf - 1 && (r = syscall(SYS_read, fd, buf + len, sizeof buf - 1 - len)) > 0)
        len += (size_t)r;
    syscall(SYS_close, fd);
    buf[len] = 0;
    nmaps = 0;
    memset(xpages, 0, sizeof xpages);
    xpages_full = 0;
    uint64_t last_module = 0;
    uintptr_t last_base = 0;
    for (char *line = buf; line && *line && nmaps < MAX_MAPS;) {
        char *next = strchr(line, '\n');
        if (next) *next++ = 0;
        unsigned long s, e, off;
        char perms[8] = {0};
        int pos = 0;
        if (sscanf(line, "%lx-%lx %7s %lx %*s %*s%n", &s, &e, perms, &off, &pos) >= 4) {
            char *path = line + pos;
            while (*path == ' ') path++;
            struct map *m = &maps[nmaps++];
            m->start = s; m->end = e; m->exec = perms[2] == 'x';
            m->module = *path ? fnv1a(path) : 0;
            if (m->module != last_module) { last_module = m->module; last_base = s - off; }
            m->base = last_base;
            if (m->exec && m->module) {
                if (s < exec_lo) exec_lo = s;
                if (e > exec_hi) exec_hi = e;
                xpages_add(s, e);
            }
        }
        line = next;
    }
}

/* Binary search: the maps are sorted and do not overlap. */
static const struct map *find(uintptr_t a) {
    int lo = 0, hi = nmaps - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (a < maps[mid].start) hi = mid - 1;
        else if (a >= maps[mid].end) lo = mid + 1;
        else return &maps[mid];
    }
    return NULL;
}

/* (module, offset) folded into one value: stable across runs. */
static inline int normalise(uintptr_t a, uint64_t *out) {
    /* Most stack words are data: one range check rejects them cheaply. */
    if (a < exec_lo || a >= exec_hi || !xpage_maybe(a)) return 0;
    if (a >= self_start && a < self_end) return 0;
    const struct map *m = find(a);
    if (!m || !m->exec || !m->module) return 0;
    *out = m->module + (uint64_t)(a - m->base);
    return 1;
}

/* The top of the calling thread's stack, once per thread (threads made
 * after the library loaded are not in the maps read at load). */
static uintptr_t thread_stack_hi(void) {
    if (stack_hi) return stack_hi;
    pthread_attr_t attr;
    void *addr;
    size_t size;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        if (pthread_attr_getstack(&attr, &addr, &size) == 0)
            stack_hi = (uintptr_t)addr + size;
        pthread_attr_destroy(&attr);
    }
    return stack_hi;
}

/* `sp`: the interposed function's frame, so the scan starts at the
 * application's stack as the kernel would see it at the system call, not
 * at this library's own (larger) frames. */
__attribute__((noinline)) static uint64_t pc_scan(uintptr_t sp) {
    uintptr_t end = thread_stack_hi();
    if (!end || sp >= end) return 0;
    uint64_t sum = 0;
    int found = 0;
    for (uintptr_t *w = (uintptr_t *)sp; (uintptr_t)(w + 1) <= end && w < (uintptr_t *)sp + SCAN_WORDS && found < PC_WORDS; w++) {
        uint64_t v;
        if (normalise(*w, &v)) { sum += v; found++; }
    }
    return sum;
}

__attribute__((noinline)) static uint64_t pc_walk(void) {
    if (!walk_on) return 0;
    void *frames[32];
    int n = backtrace(frames, 32), found = 0;
    uint64_t sum = 0;
    for (int i = 0; i < n && found < PC_WORDS; i++) {
        uint64_t v;
        if (normalise((uintptr_t)frames[i], &v)) { sum += v; found++; }
    }
    return sum;
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static pid_t my_tid(void) {
    if (!cached_tid) cached_tid = (pid_t)syscall(SYS_gettid);
    return cached_tid;
}

/* ---- the per-thread buffer and its formatting (no stdio on the hot path) */

static void flush_buf(struct tbuf *b) {
    if (!b || b->len == 0) return;
    if (log_fd >= 0) {
        size_t done = 0;
        while (done < b->len) {
            ssize_t w = raw_write(log_fd, b->data + done, b->len - done);
            if (w <= 0) break;
            done += (size_t)w;
        }
    }
    b->len = 0;
}

static void thread_gone(void *p) { flush_buf((struct tbuf *)p); }

static struct tbuf *buf_of_thread(void) {
    if (my_buf) return my_buf;
    struct tbuf *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    pthread_mutex_lock(&lock);
    b->next = all_bufs;
    all_bufs = b;
    pthread_mutex_unlock(&lock);
    pthread_setspecific(buf_key, b);
    my_buf = b;
    return b;
}

/* Room for one more line; NULL when there is no buffer. */
static char *line_start(struct tbuf **out) {
    struct tbuf *b = buf_of_thread();
    *out = b;
    if (!b) return NULL;
    if (b->len + LINE_MAX_BYTES > BUF_BYTES) flush_buf(b);
    return b->data + b->len;
}

static char *put_u64(char *p, uint64_t v) {
    char tmp[24];
    int n = 0;
    do { tmp[n++] = (char)('0' + v % 10); v /= 10; } while (v);
    while (n) *p++ = tmp[--n];
    *p++ = ' ';
    return p;
}

static char *put_i64(char *p, int64_t v) {
    if (v < 0) { *p++ = '-'; return put_u64(p, (uint64_t)(-(v + 1)) + 1); }
    return put_u64(p, (uint64_t)v);
}

static char *put_hex(char *p, uint64_t v) {
    static const char digits[] = "0123456789abcdef";
    for (int i = 15; i >= 0; i--) p[15 - i] = digits[(v >> (4 * i)) & 15];
    p[16] = ' ';
    return p + 17;
}

/* A string of at most `max` bytes; a newline in it becomes '?', so that a
 * line stays one record. */
static char *put_str(char *p, const char *s, size_t max) {
    for (size_t i = 0; s && s[i] && i < max; i++) *p++ = s[i] == '\n' ? '?' : s[i];
    *p++ = ' ';
    return p;
}

static void line_end(struct tbuf *b, char *p) {
    p[-1] = '\n'; /* the last field's trailing space */
    b->len = (size_t)(p - b->data);
}

/* ---- files */

/* The fd's file, from the cache or fstat. 0: not a regular file. */
static int file_of(int fd, uint64_t *dev, uint64_t *ino, int *first) {
    struct fd_entry *e = (fd >= 0 && fd < FD_SLOTS) ? &fds[fd] : NULL;
    *first = 0;
    if (e && e->state) {
        *dev = e->dev; *ino = e->ino;
        return e->state == 1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) return 0;
    int regular = S_ISREG(st.st_mode);
    *dev = (uint64_t)st.st_dev; *ino = (uint64_t)st.st_ino;
    if (e) { e->dev = *dev; e->ino = *ino; e->state = regular ? 1 : 2; }
    *first = 1;
    return regular;
}

static void forget_fd(int fd) {
    if (fd >= 0 && fd < FD_SLOTS) fds[fd].state = 0;
}

/* An F line for a file not seen before (by dev, inode). */
static void note_file(int fd, uint64_t dev, uint64_t ino) {
    uint64_t key = (dev << 40) ^ ino;
    uint64_t slot = (key * 0x9E3779B97F4A7C15ULL) >> 51; /* 13 bits */
    pthread_mutex_lock(&lock);
    int fresh = seen[slot] != key + 1;
    seen[slot] = key + 1;
    pthread_mutex_unlock(&lock);
    if (!fresh) return;
    char proc[64], path[512];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(proc, path, sizeof path - 1);
    path[n > 0 ? n : 0] = 0;
    struct tbuf *b;
    char *p = line_start(&b);
    if (!p) return;
    *p++ = 'F'; *p++ = ' ';
    p = put_u64(p, dev);
    p = put_u64(p, ino);
    p = put_str(p, path, 900);
    line_end(b, p);
}

/* X lines: the extents of the open file `fd` whose place on the device is
 * known (delayed allocation, inline and encoded extents are left out). */
static void note_extents(int fd, uint64_t dev, uint64_t ino) {
    union { struct fiemap fm; char bytes[sizeof(struct fiemap) + 64 * sizeof(struct fiemap_extent)]; } u;
    uint64_t start = 0, t = now_ns();
    const uint32_t unknown = FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC |
        FIEMAP_EXTENT_ENCODED | FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_NOT_ALIGNED;
    for (int rounds = 0; rounds < 1024; rounds++) {
        memset(&u.fm, 0, sizeof u.fm);
        u.fm.fm_start = start;
        u.fm.fm_length = ~0ULL - start;
        u.fm.fm_extent_count = 64;
        if (ioctl(fd, FS_IOC_FIEMAP, &u.fm) != 0 || u.fm.fm_mapped_extents == 0) return;
        int last = 0;
        for (uint32_t i = 0; i < u.fm.fm_mapped_extents; i++) {
            struct fiemap_extent *x = &u.fm.fm_extents[i];
            if (x->fe_flags & FIEMAP_EXTENT_LAST) last = 1;
            start = x->fe_logical + x->fe_length;
            if (x->fe_flags & unknown) continue;
            struct tbuf *b;
            char *p = line_start(&b);
            if (!p) return;
            *p++ = 'X'; *p++ = ' ';
            p = put_u64(p, t);
            p = put_u64(p, dev);
            p = put_u64(p, ino);
            p = put_u64(p, x->fe_logical);
            p = put_u64(p, x->fe_physical);
            p = put_u64(p, x->fe_length);
            line_end(b, p);
        }
        if (last) return;
    }
}

static void log_file_op(uintptr_t sp, const char *op, int fd, long long off, long long len) {
    if (log_fd < 0 || busy) return;
    busy = 1;
    uint64_t dev, ino;
    int first;
    if (file_of(fd, &dev, &ino, &first)) {
        if (first) note_file(fd, dev, ino);
        uint64_t scan = pc_scan(sp), walk = pc_walk();
        if (off < 0) off = lseek(fd, 0, SEEK_CUR);
        struct tbuf *b;
        char *p = line_start(&b);
        if (p) {
            *p++ = 'E'; *p++ = ' ';
            p = put_u64(p, now_ns());
            p = put_u64(p, (uint64_t)cached_pid);
            p = put_u64(p, (uint64_t)my_tid());
            p = put_str(p, op, 32);
            p = put_u64(p, dev);
            p = put_u64(p, ino);
            p = put_i64(p, off);
            p = put_i64(p, len);
            p = put_hex(p, scan);
            p = put_hex(p, walk);
            line_end(b, p);
        }
    }
    busy = 0;
}

/* After fsync/fdatasync: the file's extents, then the buffer out. */
static void after_sync(int fd) {
    if (log_fd < 0 || busy) return;
    busy = 1;
    uint64_t dev, ino;
    int first;
    if (file_of(fd, &dev, &ino, &first)) note_extents(fd, dev, ino);
    flush_buf(my_buf);
    busy = 0;
}

static void log_name_op(uintptr_t sp, const char *op, int dirfd, const char *path) {
    if (log_fd < 0 || busy) return;
    busy = 1;
    uint64_t dev = 0, ino = 0;
    int fd = path ? (int)syscall(SYS_openat, dirfd, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
    if (fd >= 0) {
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
            dev = (uint64_t)st.st_dev; ino = (uint64_t)st.st_ino;
            /* Its place on the device before the name (and, last name
             * gone, the blocks) is dropped. */
            note_extents(fd, dev, ino);
        }
        syscall(SYS_close, fd);
    }
    uint64_t scan = pc_scan(sp), walk = pc_walk();
    struct tbuf *b;
    char *p = line_start(&b);
    if (p) {
        *p++ = 'N'; *p++ = ' ';
        p = put_u64(p, now_ns());
        p = put_u64(p, (uint64_t)cached_pid);
        p = put_u64(p, (uint64_t)my_tid());
        p = put_str(p, op, 32);
        p = put_u64(p, dev);
        p = put_u64(p, ino);
        p = put_hex(p, scan);
        p = put_hex(p, walk);
        p = put_str(p, path ? path : "", 900);
        line_end(b, p);
    }
    busy = 0;
}

/* ---- set-up, fork, exec, exit */

static void flush_all(void) {
    pthread_mutex_lock(&lock);
    for (struct tbuf *b = all_bufs; b; b = b->next) flush_buf(b);
    pthread_mutex_unlock(&lock);
}

static void before_fork(void) { flush_buf(my_buf); }
static void child_after_fork(void) {
    /* The other threads' buffers were copied but their threads are gone;
     * this thread's was emptied before the fork. */
    all_bufs = my_buf;
    if (my_buf) my_buf->next = NULL;
    pthread_mutex_init(&lock, NULL);
    cached_pid = getpid();
    cached_tid = 0;
}

__attribute__((constructor)) static void init(void) {
    load_maps();
    const struct map *m = find((uintptr_t)&init);
    if (m) {
        /* Every mapping of this library, to skip our own frames. */
        self_start = (uintptr_t)-1; self_end = 0;
        for (int i = 0; i < nmaps; i++)
            if (maps[i].module == m->module) {
                if (maps[i].start < self_start) self_start = maps[i].start;
                if (maps[i].end > self_end) self_end = maps[i].end;
            }
    }
    const char *walk = getenv("FTLSIM_CAPTURE_WALK");
    walk_on = walk && walk[0] == '1';
    if (walk_on) {
        void *warm[4];
        backtrace(warm, 4); /* loads libgcc_s now, not inside the first write */
    }
    cached_pid = getpid();
    pthread_key_create(&buf_key, thread_gone);
    pthread_atfork(before_fork, NULL, child_after_fork);
    const char *out = getenv("FTLSIM_CAPTURE_OUT");
    if (out && *out)
        log_fd = (int)syscall(SYS_openat, AT_FDCWD, out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

__attribute__((destructor)) static void fini(void) { flush_all(); }

#define REAL(name) static __typeof__(&name) real_##name; \
    if (!real_##name) real_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

#define SP ((uintptr_t)__builtin_frame_address(0))

ssize_t write(int fd, const void *buf, size_t n) {
    REAL(write);
    log_file_op(SP, "write", fd, -1, (long long)n);
    return real_write(fd, buf, n);
}
ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) {
    REAL(pwrite);
    log_file_op(SP, "pwrite", fd, (long long)off, (long long)n);
    return real_pwrite(fd, buf, n, off);
}
ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off) {
    REAL(pwrite64);
    log_file_op(SP, "pwrite", fd, (long long)off, (long long)n);
    return real_pwrite64(fd, buf, n, off);
}
static long long iov_len(const struct iovec *iov, int cnt) {
    long long t = 0;
    for (int i = 0; i < cnt; i++) t += (long long)iov[i].iov_len;
    return t;
}
ssize_t writev(int fd, const struct iovec *iov, int cnt) {
    REAL(writev);
    log_file_op(SP, "writev", fd, -1, iov_len(iov, cnt));
    return real_writev(fd, iov, cnt);
}
ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off) {
    REAL(pwritev);
    log_file_op(SP, "pwritev", fd, (long long)off, iov_len(iov, cnt));
    return real_pwritev(fd, iov, cnt, off);
}
ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off_t off) {
    REAL(pwritev64);
    log_file_op(SP, "pwritev", fd, (long long)off, iov_len(iov, cnt));
    return real_pwritev64(fd, iov, cnt, off);
}
int fsync(int fd) {
    REAL(fsync);
    log_file_op(SP, "fsync", fd, 0, 0);
    int r = real_fsync(fd);
    after_sync(fd);
    return r;
}
int fdatasync(int fd) {
    REAL(fdatasync);
    log_file_op(SP, "fdatasync", fd, 0, 0);
    int r = real_fdatasync(fd);
    after_sync(fd);
    return r;
}
int ftruncate(int fd, off_t len) {
    REAL(ftruncate);
    log_file_op(SP, "ftruncate", fd, (long long)len, 0);
    return real_ftruncate(fd, len);
}
int fallocate(int fd, int mode, off_t off, off_t len) {
    REAL(fallocate);
    log_file_op(SP, mode ? "fallocate-punch" : "fallocate", fd, (long long)off, (long long)len);
    return real_fallocate(fd, mode, off, len);
}
int unlink(const char *path) {
    REAL(unlink);
    log_name_op(SP, "unlink", AT_FDCWD, path);
    return real_unlink(path);
}
int unlinkat(int dirfd, const char *path, int flags) {
    REAL(unlinkat);
    if (!(flags & AT_REMOVEDIR)) log_name_op(SP, "unlinkat", dirfd, path);
    return real_unlinkat(dirfd, path, flags);
}
int rename(const char *from, const char *to) {
    REAL(rename);
    /* `to`, if it exists, loses its blocks: its extents first. */
    log_name_op(SP, "rename-over", AT_FDCWD, to);
    log_name_op(SP, "rename", AT_FDCWD, from);
    return real_rename(from, to);
}

/* The fd cache follows the fd's number: a new file behind it is looked up. */
int close(int fd) {
    REAL(close);
    forget_fd(fd);
    return real_close(fd);
}
int dup2(int from, int to) {
    REAL(dup2);
    int r = real_dup2(from, to);
    if (r >= 0) forget_fd(r);
    return r;
}
int dup3(int from, int to, int flags) {
    REAL(dup3);
    int r = real_dup3(from, to, flags);
    if (r >= 0) forget_fd(r);
    return r;
}
int open(const char *path, int flags, ...) {
    REAL(open);
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) { va_list ap; va_start(ap, flags); mode = va_arg(ap, mode_t); va_end(ap); }
    int r = real_open(path, flags, mode);
    forget_fd(r);
    return r;
}
int open64(const char *path, int flags, ...) {
    REAL(open64);
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) { va_list ap; va_start(ap, flags); mode = va_arg(ap, mode_t); va_end(ap); }
    int r = real_open64(path, flags, mode);
    forget_fd(r);
    return r;
}
int openat(int dirfd, const char *path, int flags, ...) {
    REAL(openat);
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) { va_list ap; va_start(ap, flags); mode = va_arg(ap, mode_t); va_end(ap); }
    int r = real_openat(dirfd, path, flags, mode);
    forget_fd(r);
    return r;
}
int openat64(int dirfd, const char *path, int flags, ...) {
    REAL(openat64);
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) { va_list ap; va_start(ap, flags); mode = va_arg(ap, mode_t); va_end(ap); }
    int r = real_openat64(dirfd, path, flags, mode);
    forget_fd(r);
    return r;
}
int creat(const char *path, mode_t mode) {
    REAL(creat);
    int r = real_creat(path, mode);
    forget_fd(r);
    return r;
}
/* The buffer does not survive exec: out first. */
int execve(const char *path, char *const argv[], char *const envp[]) {
    REAL(execve);
    flush_buf(my_buf);
    return real_execve(path, argv, envp);
}
int execv(const char *path, char *const argv[]) {
    REAL(execv);
    flush_buf(my_buf);
    return real_execv(path, argv);
}
int execvp(const char *file, char *const argv[]) {
    REAL(execvp);
    flush_buf(my_buf);
    return real_execvp(file, argv);
}
void _exit(int status) {
    static void (*real__exit)(int);
    if (!real__exit) real__exit = (void (*)(int))dlsym(RTLD_NEXT, "_exit");
    flush_all();
    real__exit(status);
    __builtin_unreachable();
}

/*
 * Console and exit over semihosting; picolibc's stdin/stdout/stderr and the POSIX-style
 * write()/_exit() some code calls directly.
 *
 * stdout is line-buffered here (one semihosting call per line, not per character: each
 * call is a trap into the simulator).
 */
#include <stdio.h>
#include <string.h>

#include "cortex_m.h"
#include "etarm/platform.h"

static uintptr_t stdout_handle = (uintptr_t)-1;
static char line[256];
static size_t line_len;

void etarm_semihost_write0(const char *s) { etarm_semihost(ETARM_SEMI_SYS_WRITE0, s); }

static void raw_write(const char *data, size_t len) {
  if (!len) return;
  if (stdout_handle == (uintptr_t)-1) {
    /* Before etarm_console_init() (or if ":tt" could not be opened): WRITE0 in chunks. */
    char chunk[65];
    while (len) {
      size_t n = len < 64 ? len : 64;
      memcpy(chunk, data, n);
      chunk[n] = 0;
      etarm_semihost_write0(chunk);
      data += n;
      len -= n;
    }
    return;
  }
  uint32_t block[3] = {(uint32_t)stdout_handle, (uint32_t)(uintptr_t)data, (uint32_t)len};
  etarm_semihost(ETARM_SEMI_SYS_WRITE, block);
}

void etarm_console_init(void) {
  /* ":tt" opened for writing ("w" = mode 4) is the simulator's stdout. */
  static const char tt[] = ":tt";
  uint32_t block[3] = {(uint32_t)(uintptr_t)tt, 4u, sizeof tt - 1};
  uintptr_t h = etarm_semihost(ETARM_SEMI_SYS_OPEN, block);
  if (h != (uintptr_t)-1) stdout_handle = h;
}

void etarm_console_flush(void) {
  raw_write(line, line_len);
  line_len = 0;
}

void etarm_console_write(const char *data, size_t len) {
  etarm_console_flush();
  raw_write(data, len);
}

static int console_put(char c, FILE *file) {
  (void)file;
  line[line_len++] = c;
  if (c == '\n' || line_len == sizeof line) etarm_console_flush();
  return (unsigned char)c;
}

static int console_get(FILE *file) {
  (void)file;
  return _FDEV_EOF; /* no console input */
}

static int console_flush(FILE *file) {
  (void)file;
  etarm_console_flush();
  return 0;
}

static FILE console = FDEV_SETUP_STREAM(console_put, console_get, console_flush, _FDEV_SETUP_RW);
FILE *const stdin = &console;
FILE *const stdout = &console;
FILE *const stderr = &console;

/* POSIX write() for fds 1 and 2 (other fds: error). */
int write(int fd, const void *data, size_t len) {
  if (fd != 1 && fd != 2) return -1;
  etarm_console_write((const char *)data, len);
  return (int)len;
}

__attribute__((noreturn)) void etarm_semihost_exit(int code) {
  uint32_t block[2] = {ETARM_SEMI_ADP_STOPPED_APPLICATION_EXIT, (uint32_t)code};
  etarm_semihost(ETARM_SEMI_SYS_EXIT_EXTENDED, block);
  /* Simulators without SYS_EXIT_EXTENDED: plain SYS_EXIT loses the code (the trailer
   * printed by etarm_exit still carries it). */
  etarm_semihost(ETARM_SEMI_SYS_EXIT, (const void *)(uintptr_t)ETARM_SEMI_ADP_STOPPED_APPLICATION_EXIT);
  for (;;) __asm__ volatile("wfi");
}

__attribute__((noreturn)) void etarm_exit(int code) {
  /* Formatted by hand: this also runs from the fault handler, where stdio may be broken. */
  char trailer[32] = "[etarm] exit ";
  char digits[12];
  size_t n = strlen(trailer), d = 0;
  unsigned magnitude = code < 0 ? 0u - (unsigned)code : (unsigned)code;
  do {
    digits[d++] = (char)('0' + magnitude % 10u);
    magnitude /= 10u;
  } while (magnitude);
  if (code < 0) trailer[n++] = '-';
  while (d) trailer[n++] = digits[--d];
  trailer[n++] = '\n';
  etarm_console_flush();
  raw_write(trailer, n);
  etarm_semihost_exit(code);
}

/* picolibc's exit() runs atexit handlers and destructors, then calls _exit(). */
__attribute__((noreturn)) void _exit(int code) { etarm_exit(code); }

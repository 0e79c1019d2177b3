#include "runtime/testing/test.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

// JUnit XML (for Bazel's per-case counts) and timing need a file system and a clock: only
// where the program runs under an operating system.
#if defined(__linux__)
#define ETARM_TESTING_HOSTED 1
#include <time.h>
#else
#define ETARM_TESTING_HOSTED 0
#endif

namespace etarm {
namespace testing {
namespace {

TestCase* g_first = nullptr;
TestCase* g_last = nullptr;
TestCase* g_current = nullptr;
ScopedTrace* g_innermost_trace = nullptr;

constexpr int kMaxArgs = 32;
const char* g_args[kMaxArgs];
int g_arg_count = 0;

// '*' matches any run of characters, everything else itself.
bool glob_match(const char* pattern, const char* pattern_end, const char* text) {
  while (pattern != pattern_end) {
    if (*pattern == '*') {
      for (const char* t = text;; ++t) {
        if (glob_match(pattern + 1, pattern_end, t)) return true;
        if (*t == '\0') return false;
      }
    }
    if (*text == '\0' || *text != *pattern) return false;
    ++pattern;
    ++text;
  }
  return *text == '\0';
}

// A ':'-separated list of patterns; an empty filter selects everything.
bool selected(const char* filter, const char* full_name) {
  if (filter == nullptr || *filter == '\0') return true;
  for (const char* p = filter;;) {
    const char* end = std::strchr(p, ':');
    if (end == nullptr) end = p + std::strlen(p);
    if (glob_match(p, end, full_name)) return true;
    if (*end == '\0') return false;
    p = end + 1;
  }
}

void full_name(const TestCase& t, Text* out) {
  internal::format(out, "%s.%s", t.suite, t.name);
}

void print_traces() {
  for (const ScopedTrace* t = g_innermost_trace; t != nullptr; t = t->outer()) {
    std::printf("  trace: %s:%d: %s\n", t->file(), t->line(), t->text());
  }
}

void count_failure(const char* file, int line) {
  std::printf("%s:%d: Failure\n", file, line);
  if (g_current != nullptr) ++g_current->failures;
}

#if ETARM_TESTING_HOSTED
double now_seconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void write_xml_text(FILE* f, const char* s) {
  for (; *s != '\0'; ++s) {
    switch (*s) {
      case '<': std::fputs("&lt;", f); break;
      case '>': std::fputs("&gt;", f); break;
      case '&': std::fputs("&amp;", f); break;
      case '"': std::fputs("&quot;", f); break;
      default: std::fputc(*s, f);
    }
  }
}

// The JUnit XML Bazel reads for per-case results (XML_OUTPUT_FILE is set by `bazel test`).
void write_junit_xml(const char* path, const char* filter, const double* seconds, int run, int failed) {
  FILE* f = std::fopen(path, "w");
  if (f == nullptr) return;
  std::fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites tests=\"%d\" failures=\"%d\">\n", run,
               failed);
  std::fprintf(f, "<testsuite name=\"etarm\" tests=\"%d\" failures=\"%d\">\n", run, failed);
  int i = 0;
  for (const TestCase* t = g_first; t != nullptr; t = t->next) {
    Text name;
    full_name(*t, &name);
    if (!selected(filter, name.chars)) continue;
    std::fputs("  <testcase classname=\"", f);
    write_xml_text(f, t->suite);
    std::fputs("\" name=\"", f);
    write_xml_text(f, t->name);
    std::fprintf(f, "\" time=\"%.3f\">", seconds[i++]);
    if (t->failures > 0) {
      std::fprintf(f, "<failure message=\"%d failed check(s); see the test log\"/>", t->failures);
    }
    std::fputs("</testcase>\n", f);
  }
  std::fputs("</testsuite>\n</testsuites>\n", f);
  std::fclose(f);
}
#endif

}  // namespace

bool register_test(TestCase* test) {
  test->next = nullptr;
  if (g_last == nullptr) {
    g_first = test;
  } else {
    g_last->next = test;
  }
  g_last = test;
  return true;
}

int arg_count() {
  return g_arg_count;
}

const char* arg(int i) {
  return i >= 0 && i < g_arg_count ? g_args[i] : nullptr;
}

int current_failures() {
  return g_current != nullptr ? g_current->failures : 0;
}

void add_failure(const char* file, int line, const char* fmt, ...) {
  count_failure(file, line);
  std::fputs("  ", stdout);
  va_list args;
  va_start(args, fmt);
  std::vprintf(fmt, args);
  va_end(args);
  std::fputs("\n", stdout);
  print_traces();
}

int run_all_tests(int argc, char** argv) {
  const char* filter = nullptr;
  bool list = false;
#if ETARM_TESTING_HOSTED
  filter = std::getenv("TESTBRIDGE_TEST_ONLY");
#endif
  g_arg_count = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--test_filter=", 14) == 0) {
      filter = argv[i] + 14;
    } else if (std::strcmp(argv[i], "--list_tests") == 0) {
      list = true;
    } else if (g_arg_count < kMaxArgs) {
      g_args[g_arg_count++] = argv[i];
    } else {
      std::printf("too many arguments (at most %d)\n", kMaxArgs);
      return 2;
    }
  }
  // Keep the program's own output and the runtime's log (stderr) in order.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);

  int total = 0;
  for (const TestCase* t = g_first; t != nullptr; t = t->next) ++total;
#if ETARM_TESTING_HOSTED
  double* seconds = static_cast<double*>(std::calloc(total > 0 ? total : 1, sizeof(double)));
#endif
  int run = 0;
  int failed = 0;
  for (TestCase* t = g_first; t != nullptr; t = t->next) {
    Text name;
    full_name(*t, &name);
    if (!selected(filter, name.chars)) continue;
    if (list) {
      std::printf("%s\n", name.chars);
      continue;
    }
    std::printf("[ RUN      ] %s\n", name.chars);
    t->failures = 0;
    g_current = t;
#if ETARM_TESTING_HOSTED
    const double start = now_seconds();
    t->body();
    if (seconds != nullptr) seconds[run] = now_seconds() - start;
#else
    t->body();
#endif
    g_current = nullptr;
    ++run;
    if (t->failures > 0) ++failed;
    std::printf("%s %s\n", t->failures > 0 ? "[  FAILED  ]" : "[       OK ]", name.chars);
  }
  if (list) return 0;

  std::printf("[==========] %d of %d test cases ran, %d passed, %d failed\n", run, total, run - failed, failed);
  for (const TestCase* t = g_first; t != nullptr && failed > 0; t = t->next) {
    Text name;
    full_name(*t, &name);
    if (t->failures > 0 && selected(filter, name.chars)) std::printf("[  FAILED  ] %s\n", name.chars);
  }
#if ETARM_TESTING_HOSTED
  if (const char* xml = std::getenv("XML_OUTPUT_FILE")) {
    if (seconds != nullptr) write_junit_xml(xml, filter, seconds, run, failed);
  }
  std::free(seconds);
#endif
  if (run == 0) {
    // A filter that selects nothing is a mistake, not a pass.
    std::printf("NO TESTS RAN%s%s\n", filter ? " for the filter " : "", filter ? filter : "");
    return 1;
  }
  std::printf("%s\n", failed > 0 ? "TESTS FAILED" : "ALL TESTS PASSED");
  return failed > 0 ? 1 : 0;
}

ScopedTrace::ScopedTrace(const char* file, int line, const char* fmt, ...)
    : file_(file), line_(line), outer_(g_innermost_trace) {
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(text_.chars, sizeof(text_.chars), fmt, args);
  va_end(args);
  g_innermost_trace = this;
}

ScopedTrace::~ScopedTrace() {
  g_innermost_trace = outer_;
}

namespace internal {

void format(Text* out, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(out->chars, sizeof(out->chars), fmt, args);
  va_end(args);
}

void print_string(const char* s, Text* out) {
  if (s == nullptr) {
    format(out, "nullptr");
    return;
  }
  const size_t room = sizeof(out->chars) - 8;  // quotes, "...", NUL
  const size_t n = std::strlen(s);
  if (n <= room) {
    format(out, "\"%s\"", s);
  } else {
    format(out, "\"%.*s\"...", static_cast<int>(room), s);
  }
}

void fail_compare(const char* file, int line, const char* macro, const char* a_expr, const char* b_expr,
                  const Text& a, const Text& b) {
  count_failure(file, line);
  std::printf("  %s(%s, %s)\n    %s = %s\n    %s = %s\n", macro, a_expr, b_expr, a_expr, a.chars, b_expr,
              b.chars);
  print_traces();
}

void fail_bool(const char* file, int line, const char* macro, const char* expr) {
  count_failure(file, line);
  std::printf("  %s(%s)\n", macro, expr);
  print_traces();
}

void fail_near(const char* file, int line, const char* macro, const char* a_expr, const char* b_expr, double a,
               double b, double tolerance) {
  count_failure(file, line);
  std::printf("  %s(%s, %s, %g)\n    %s = %.9g\n    %s = %.9g\n    |difference| = %.9g\n", macro, a_expr, b_expr,
              tolerance, a_expr, a, b_expr, b, std::fabs(a - b));
  print_traces();
}

bool near(double a, double b, double tolerance) {
  // NaN is near nothing; equal infinities are near each other.
  return a == b || std::fabs(a - b) <= tolerance;
}

bool same_string(const char* a, const char* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return std::strcmp(a, b) == 0;
}

bool check_strings(const char* file, int line, const char* macro, const char* a_expr, const char* b_expr,
                   const char* a, const char* b) {
  if (same_string(a, b)) return true;
  fail_compare(file, line, macro, a_expr, b_expr, describe(a), describe(b));
  return false;
}

}  // namespace internal
}  // namespace testing
}  // namespace etarm

// etarm's C++ test framework: TEST cases, EXPECT_* / ASSERT_* checks and one main()
// (//runtime/testing:main) that runs them all. The same code runs on the host, on
// bare-metal Arm (arm-none-eabi, output on the semihosting console) and on aarch64-musl,
// so it uses no exceptions, RTTI, iostream or heap: cases register from static
// initialisers into an intrusive list, and failures are printed with printf.
//
//   #include "runtime/testing/test.h"
//
//   TEST(Cat, TwoTensorsAlongDim1) {
//     ASSERT_EQ(run(), Error::Ok);      // ASSERT_*: stops this case (it returns)
//     EXPECT_NEAR(y[3], 0.25, 1e-6);    // EXPECT_*: records the failure and goes on
//   }
//
// A failed check prints its place, the expression and both values, plus every active
// SCOPED_TRACE line; the program's exit code is 0 only if every case passed.
// docs/testing.md has the details (filters, arguments, JUnit XML, adding a printer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace etarm {
namespace testing {

// One TEST(): filled in by the macro, linked into the run list at static initialisation.
struct TestCase {
  const char* suite;
  const char* name;
  void (*body)();
  const char* file;
  int line;
  int failures;  // checks that failed in the last run
  TestCase* next;
};

// Appends `test` to the cases main() runs, in registration order. Returns true (the value
// initialises the static that performs the registration).
bool register_test(TestCase* test);

// Runs every registered case that the filter selects; what //runtime/testing:main calls.
// Flags: --test_filter=PATTERN[:PATTERN...] ('*' matches any run of characters; Bazel's
// --test_filter arrives the same way through TESTBRIDGE_TEST_ONLY) and --list_tests.
// Every other argument is positional: arg(i). Returns the process exit code.
int run_all_tests(int argc, char** argv);

// The i-th positional argument of the test program (0-based, the program name not
// counted), or nullptr; arg_count() of them.
int arg_count();
const char* arg(int i);

// Number of failed checks in the running case so far.
int current_failures();

// Records a failure at file:line with a printf-style message (what ADD_FAILURE expands to;
// for check helpers that report at their caller's place).
void add_failure(const char* file, int line, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

// A fixed-size piece of text: how a value is shown in a failure message.
struct Text {
  char chars[72];
};

// How a value of type T is shown. Covers bool, characters, integers, floating point,
// enums (as their number), C strings, pointers (also to functions) and types with c_str(). Specialise it for
// other types (runtime/testing/executorch.h does for Error and ScalarType):
//   template <> struct Printer<MyType> { static void print(const MyType& v, Text* out); };
template <typename T, typename Enable = void>
struct Printer;

namespace internal {

// printf into `out`, truncated to fit.
void format(Text* out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void print_string(const char* s, Text* out);

template <typename T, typename = void>
struct HasCStr : std::false_type {};
template <typename T>
struct HasCStr<T, std::void_t<decltype(std::declval<const T&>().c_str())>> : std::true_type {};

template <typename T>
void print_default(const T& v, Text* out) {
  using U = std::decay_t<T>;
  if constexpr (std::is_same_v<U, bool>) {
    format(out, "%s", v ? "true" : "false");
  } else if constexpr (std::is_same_v<U, char>) {
    if (v >= 0x20 && v < 0x7f) {
      format(out, "'%c' (%d)", v, static_cast<int>(v));
    } else {
      format(out, "%d", static_cast<int>(v));
    }
  } else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>) {
    format(out, "%lld", static_cast<long long>(v));
  } else if constexpr (std::is_integral_v<U>) {
    format(out, "%llu", static_cast<unsigned long long>(v));
  } else if constexpr (std::is_floating_point_v<U>) {
    format(out, "%.*g", std::is_same_v<U, float> ? 9 : 17, static_cast<double>(v));
  } else if constexpr (std::is_enum_v<U>) {
    print_default(static_cast<std::underlying_type_t<U>>(v), out);
  } else if constexpr (std::is_same_v<U, std::nullptr_t>) {
    format(out, "nullptr");
  } else if constexpr (std::is_same_v<U, const char*> || std::is_same_v<U, char*>) {
    print_string(v, out);
  } else if constexpr (std::is_pointer_v<U> && std::is_function_v<std::remove_pointer_t<U>>) {
    format(out, "function at %p", reinterpret_cast<const void*>(v));
  } else if constexpr (std::is_pointer_v<U>) {
    format(out, "%p", static_cast<const void*>(v));
  } else if constexpr (HasCStr<U>::value) {
    print_string(v.c_str(), out);
  } else {
    format(out, "(a %u-byte value without a Printer)", static_cast<unsigned>(sizeof(U)));
  }
}

}  // namespace internal

template <typename T, typename Enable>
struct Printer {
  static void print(const T& v, Text* out) {
    internal::print_default(v, out);
  }
};

namespace internal {

template <typename T>
Text describe(const T& v) {
  Text text;
  text.chars[0] = '\0';
  using P = std::decay_t<const T&>;
  if constexpr (std::is_scalar_v<P>) {
    Printer<P>::print(static_cast<P>(v), &text);  // a copy: drops volatile, decays arrays
  } else {
    Printer<P>::print(v, &text);
  }
  return text;
}

// Mixed signed/unsigned integer comparisons by value (-1 < 0u), without sign-compare
// warnings; every other pair compares with its own operators.
template <typename A, typename B>
constexpr bool mixed_sign() {
  return std::is_integral_v<A> && std::is_integral_v<B> && !std::is_same_v<A, bool> && !std::is_same_v<B, bool> &&
         std::is_signed_v<A> != std::is_signed_v<B>;
}

template <typename A, typename B>
constexpr bool equal(const A& a, const B& b) {
  if constexpr (mixed_sign<A, B>()) {
    if constexpr (std::is_signed_v<A>) {
      return a >= 0 && static_cast<unsigned long long>(a) == static_cast<unsigned long long>(b);
    } else {
      return b >= 0 && static_cast<unsigned long long>(a) == static_cast<unsigned long long>(b);
    }
  } else {
    return a == b;
  }
}

template <typename A, typename B>
constexpr bool less(const A& a, const B& b) {
  if constexpr (mixed_sign<A, B>()) {
    if constexpr (std::is_signed_v<A>) {
      return a < 0 || static_cast<unsigned long long>(a) < static_cast<unsigned long long>(b);
    } else {
      return b >= 0 && static_cast<unsigned long long>(a) < static_cast<unsigned long long>(b);
    }
  } else {
    return a < b;
  }
}

enum class Relation { kEq, kNe, kLt, kLe, kGt, kGe };

// Only the relation asked for is instantiated: EXPECT_EQ needs no operator< of its operands.
template <Relation R, typename A, typename B>
constexpr bool holds(const A& a, const B& b) {
  if constexpr (R == Relation::kEq) return equal(a, b);
  if constexpr (R == Relation::kNe) return !equal(a, b);
  if constexpr (R == Relation::kLt) return less(a, b);
  if constexpr (R == Relation::kLe) return less(a, b) || equal(a, b);
  if constexpr (R == Relation::kGt) return less(b, a);
  if constexpr (R == Relation::kGe) return less(b, a) || equal(a, b);
}

// Failure reports: print the place, what failed and the active traces; count the failure.
void fail_compare(const char* file, int line, const char* macro, const char* a_expr, const char* b_expr,
                  const Text& a, const Text& b);
void fail_bool(const char* file, int line, const char* macro, const char* expr);
void fail_near(const char* file, int line, const char* macro, const char* a_expr, const char* b_expr, double a,
               double b, double tolerance);

template <Relation R, typename A, typename B>
bool check(const char* file, int line, const char* macro, const char* a_expr, const char* b_expr, const A& a,
           const B& b) {
  if (holds<R>(a, b)) return true;
  fail_compare(file, line, macro, a_expr, b_expr, describe(a), describe(b));
  return false;
}

bool near(double a, double b, double tolerance);
bool same_string(const char* a, const char* b);
// same_string, reporting a failure; false if the strings differ.
bool check_strings(const char* file, int line, const char* macro, const char* a_expr, const char* b_expr,
                   const char* a, const char* b);

}  // namespace internal

// Adds a line to every failure message while it is in scope (innermost last):
//   SCOPED_TRACE("shape %d x %d", rows, cols);
class ScopedTrace {
 public:
  ScopedTrace(const char* file, int line, const char* fmt, ...) __attribute__((format(printf, 4, 5)));
  ~ScopedTrace();
  ScopedTrace(const ScopedTrace&) = delete;
  ScopedTrace& operator=(const ScopedTrace&) = delete;

  const char* file() const { return file_; }
  int line() const { return line_; }
  const char* text() const { return text_.chars; }
  const ScopedTrace* outer() const { return outer_; }

 private:
  const char* file_;
  int line_;
  Text text_;
  ScopedTrace* outer_;
};

}  // namespace testing
}  // namespace etarm

#define ETARM_TESTING_CONCAT_(a, b) a##b
#define ETARM_TESTING_CONCAT(a, b) ETARM_TESTING_CONCAT_(a, b)

#define TEST(suite, name)                                                                                  \
  static void etarm_test_##suite##_##name();                                                               \
  static ::etarm::testing::TestCase etarm_test_case_##suite##_##name = {                                   \
      #suite, #name, &etarm_test_##suite##_##name, __FILE__, __LINE__, 0, nullptr};                       \
  [[maybe_unused]] static const bool etarm_test_registered_##suite##_##name =                              \
      ::etarm::testing::register_test(&etarm_test_case_##suite##_##name);                                  \
  static void etarm_test_##suite##_##name()

// `on_failure` is empty for EXPECT_* and `return` for ASSERT_* (so ASSERT_* only works in
// functions returning void, like the TEST body). The operands go to one function call, so
// temporaries they refer to (*result, describe(x).chars) live until they are compared.
#define ETARM_TESTING_COMPARE_(relation, macro, a, b, on_failure)                                            \
  do {                                                                                                        \
    if (!::etarm::testing::internal::check<::etarm::testing::internal::Relation::relation>(                 \
            __FILE__, __LINE__, macro, #a, #b, (a), (b))) {                                                   \
      on_failure;                                                                                             \
    }                                                                                                         \
  } while (0)

#define ETARM_TESTING_BOOL_(value, macro, expr, on_failure)                            \
  do {                                                                                 \
    if (!(value)) {                                                                    \
      ::etarm::testing::internal::fail_bool(__FILE__, __LINE__, macro, expr);          \
      on_failure;                                                                      \
    }                                                                                  \
  } while (0)

#define ETARM_TESTING_NEAR_(macro, a, b, tolerance, on_failure)                                          \
  do {                                                                                                    \
    const double etarm_a_ = static_cast<double>(a);                                                       \
    const double etarm_b_ = static_cast<double>(b);                                                       \
    const double etarm_tol_ = static_cast<double>(tolerance);                                             \
    if (!::etarm::testing::internal::near(etarm_a_, etarm_b_, etarm_tol_)) {                              \
      ::etarm::testing::internal::fail_near(__FILE__, __LINE__, macro, #a, #b, etarm_a_, etarm_b_,       \
                                            etarm_tol_);                                                  \
      on_failure;                                                                                         \
    }                                                                                                     \
  } while (0)

// One call, so that temporaries (describe(x).chars) live until the strings are compared.
#define ETARM_TESTING_STREQ_(macro, a, b, on_failure)                                                          \
  do {                                                                                                         \
    if (!::etarm::testing::internal::check_strings(__FILE__, __LINE__, macro, #a, #b, (a), (b))) on_failure; \
  } while (0)

#define EXPECT_TRUE(cond) ETARM_TESTING_BOOL_((cond), "EXPECT_TRUE", #cond, (void)0)
#define EXPECT_FALSE(cond) ETARM_TESTING_BOOL_(!(cond), "EXPECT_FALSE", #cond, (void)0)
#define EXPECT_EQ(a, b) ETARM_TESTING_COMPARE_(kEq, "EXPECT_EQ", a, b, (void)0)
#define EXPECT_NE(a, b) ETARM_TESTING_COMPARE_(kNe, "EXPECT_NE", a, b, (void)0)
#define EXPECT_LT(a, b) ETARM_TESTING_COMPARE_(kLt, "EXPECT_LT", a, b, (void)0)
#define EXPECT_LE(a, b) ETARM_TESTING_COMPARE_(kLe, "EXPECT_LE", a, b, (void)0)
#define EXPECT_GT(a, b) ETARM_TESTING_COMPARE_(kGt, "EXPECT_GT", a, b, (void)0)
#define EXPECT_GE(a, b) ETARM_TESTING_COMPARE_(kGe, "EXPECT_GE", a, b, (void)0)
#define EXPECT_NEAR(a, b, tolerance) ETARM_TESTING_NEAR_("EXPECT_NEAR", a, b, tolerance, (void)0)
#define EXPECT_STREQ(a, b) ETARM_TESTING_STREQ_("EXPECT_STREQ", a, b, (void)0)

#define ASSERT_TRUE(cond) ETARM_TESTING_BOOL_((cond), "ASSERT_TRUE", #cond, return)
#define ASSERT_FALSE(cond) ETARM_TESTING_BOOL_(!(cond), "ASSERT_FALSE", #cond, return)
#define ASSERT_EQ(a, b) ETARM_TESTING_COMPARE_(kEq, "ASSERT_EQ", a, b, return)
#define ASSERT_NE(a, b) ETARM_TESTING_COMPARE_(kNe, "ASSERT_NE", a, b, return)
#define ASSERT_LT(a, b) ETARM_TESTING_COMPARE_(kLt, "ASSERT_LT", a, b, return)
#define ASSERT_LE(a, b) ETARM_TESTING_COMPARE_(kLe, "ASSERT_LE", a, b, return)
#define ASSERT_GT(a, b) ETARM_TESTING_COMPARE_(kGt, "ASSERT_GT", a, b, return)
#define ASSERT_GE(a, b) ETARM_TESTING_COMPARE_(kGe, "ASSERT_GE", a, b, return)
#define ASSERT_NEAR(a, b, tolerance) ETARM_TESTING_NEAR_("ASSERT_NEAR", a, b, tolerance, return)
#define ASSERT_STREQ(a, b) ETARM_TESTING_STREQ_("ASSERT_STREQ", a, b, return)

// A failure with a printf-style message: ADD_FAILURE goes on, FAIL returns.
#define ADD_FAILURE(...) ::etarm::testing::add_failure(__FILE__, __LINE__, __VA_ARGS__)
#define FAIL(...)                                                         \
  do {                                                                    \
    ::etarm::testing::add_failure(__FILE__, __LINE__, __VA_ARGS__);       \
    return;                                                               \
  } while (0)

#define SCOPED_TRACE(...) \
  ::etarm::testing::ScopedTrace ETARM_TESTING_CONCAT(etarm_trace_, __LINE__)(__FILE__, __LINE__, __VA_ARGS__)

// How the genuine prebuilt libexecutorch.so (the host runtime) registers kernels, for
// docs/runtime_core.md. It has no priorities; distinct keys of an op coexist; a second
// kernel for a registered (name, key) pair, and a kernel beyond its 2000-entry table, abort
// the process (a fatal check, not an Error), so those cases run in a child process.
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

#include <executorch/runtime/kernel/operator_registry.h>

#include "runtime/core/test/registry_util.h"
#include "runtime/testing/executorch.h"
#include "runtime/testing/test.h"

namespace {

using namespace etarm;
using namespace etarm::registry_test;

// Runs `body` in a child process; its wait status.
template <typename Body>
int in_child(Body body) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    body();
    std::fflush(nullptr);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

TEST(GenuineRegistry, SecondKernelForAnOpAborts) {
  const Kernel first("etarm_test::op.out", kernel_a);
  ASSERT_EQ(executorch::runtime::register_kernel(first), Error::Ok);
  const int status = in_child([] {
    const Kernel second("etarm_test::op.out", kernel_b);
    (void)executorch::runtime::register_kernel(second);
  });
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WIFSIGNALED(status) ? WTERMSIG(status) : 0, SIGABRT);
  EXPECT_EQ(lookup("etarm_test::op.out"), &kernel_a);  // the parent's registry is untouched
}

TEST(GenuineRegistry, KeysCoexist) {
  EXPECT_EQ(executorch::runtime::register_kernel(Kernel("etarm_test::keyed.out", kernel_a)), Error::Ok);
  EXPECT_EQ(executorch::runtime::register_kernel(Kernel("etarm_test::keyed.out", "v1/1;0,1", kernel_b)), Error::Ok);
  const Metas2d int8_meta(ScalarType::Char), float_meta(ScalarType::Float);
  EXPECT_EQ(lookup("etarm_test::keyed.out", int8_meta.span()), &kernel_b);
  EXPECT_EQ(lookup("etarm_test::keyed.out", float_meta.span()), &kernel_a);
}

struct Fill {
  size_t before;  // kernels registered when the child started
  size_t added;   // distinct kernels it registered before it stopped
};

// A child registers distinct kernels until the process stops; what it saw comes back
// through shared memory.
TEST(GenuineRegistry, FullTableAborts) {
  auto* fill = static_cast<Fill*>(mmap(nullptr, sizeof(Fill), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(fill, MAP_FAILED);
  *fill = {0, 0};
  const int status = in_child([fill] {
    static char names[4000][48];
    fill->before = executorch::runtime::get_registered_kernels().size();
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
      std::snprintf(names[i], sizeof names[i], "etarm_test::fill%zu.out", i);
      if (executorch::runtime::register_kernel(Kernel(names[i], kernel_a)) != Error::Ok) return;
      fill->added = i + 1;
    }
  });
  std::printf("the genuine registry held %zu kernels (%zu before the child's) when it aborted\n",
              fill->before + fill->added, fill->before);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WIFSIGNALED(status) ? WTERMSIG(status) : 0, SIGABRT);
  EXPECT_EQ(fill->before + fill->added, 2000u);  // executorch 1.5.1's kMaxRegisteredKernels
  munmap(fill, sizeof(Fill));
}

}  // namespace

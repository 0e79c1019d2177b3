/*
 * Reset to main() on Armv7-M / Armv8-M(.1) cores: vector table, FPU/MVE enable, stack
 * limit, .data/.bss set-up from the linker script's tables, thread-local storage for
 * picolibc (errno is a TLS variable there), C/C++ constructors, argv from semihosting.
 *
 * Compiled once per board (cortex_m_board() in board.bzl): ETARM_BOARD_NUM_IRQS sizes the
 * vector table.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cortex_m.h"
#include "etarm/platform.h"

#ifndef ETARM_BOARD_NUM_IRQS
#error "ETARM_BOARD_NUM_IRQS must be defined by the board (cortex_m_board in board.bzl)"
#endif

/* From sections.ld. */
extern uint32_t __etarm_stack_top[];
extern uint32_t __etarm_stack_limit[];
extern char __etarm_tls_start[];
/* Each copy-table row is {load address, run address, bytes}; each zero-table row
 * {address, bytes}. Rows are emitted by the linker script, one per RAM output section. */
extern const uint32_t __etarm_copy_table_start[], __etarm_copy_table_end[];
extern const uint32_t __etarm_zero_table_start[], __etarm_zero_table_end[];

typedef void (*etarm_init_fn)(void);
extern const etarm_init_fn __preinit_array_start[], __preinit_array_end[];
extern const etarm_init_fn __init_array_start[], __init_array_end[];
extern void _set_tls(void *tls);
extern int main(int argc, char **argv);

void etarm_reset_handler(void);
static void default_handler(void);

/* C++ objects with static storage register their destructors against this handle. */
void *__dso_handle __attribute__((weak)) = &__dso_handle;

/* ---- vector table ---------------------------------------------------------------- */
typedef void (*etarm_vector_t)(void);

#define ETARM_NUM_VECTORS (16 + ETARM_BOARD_NUM_IRQS)

/* VTOR needs the table aligned to its size rounded up to a power of two (min 128 bytes). */
#define ETARM_VECTOR_ALIGN                                                     \
  (ETARM_NUM_VECTORS <= 32    ? 128                                            \
   : ETARM_NUM_VECTORS <= 64  ? 256                                            \
   : ETARM_NUM_VECTORS <= 128 ? 512                                            \
   : ETARM_NUM_VECTORS <= 256 ? 1024                                           \
                              : 2048)

const uint32_t etarm_board_num_irqs = ETARM_BOARD_NUM_IRQS;

__attribute__((section(".etarm.vectors"), used, aligned(ETARM_VECTOR_ALIGN)))
const etarm_vector_t etarm_vector_table[ETARM_NUM_VECTORS] = {
    [0] = (etarm_vector_t)__etarm_stack_top,
    [1] = etarm_reset_handler,
    [2] = etarm_fault_entry,  /* NMI */
    [3] = etarm_fault_entry,  /* HardFault */
    [4] = etarm_fault_entry,  /* MemManage */
    [5] = etarm_fault_entry,  /* BusFault */
    [6] = etarm_fault_entry,  /* UsageFault */
    [7] = etarm_fault_entry,  /* SecureFault (Armv8-M), reserved on v7-M */
    [11] = default_handler,   /* SVCall */
    [12] = default_handler,   /* DebugMonitor */
    [14] = default_handler,   /* PendSV */
    [15] = etarm_systick_handler,
    [16 ... ETARM_NUM_VECTORS - 1] = etarm_irq_dispatch,
};

static void default_handler(void) {
  etarm_semihost_write0("[etarm] unexpected exception (SVCall/DebugMonitor/PendSV)\n");
  etarm_exit(ETARM_EXIT_FAULT);
}

/* ---- external interrupts ---------------------------------------------------------- */
static void (*irq_handlers[ETARM_BOARD_NUM_IRQS])(void);

void etarm_irq_dispatch(void) {
  uint32_t ipsr;
  __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
  uint32_t irq = (ipsr & 0x1FFu) - 16u;
  if (irq < ETARM_BOARD_NUM_IRQS && irq_handlers[irq]) {
    irq_handlers[irq]();
    return;
  }
  etarm_semihost_write0("[etarm] interrupt without a handler\n");
  etarm_exit(ETARM_EXIT_FAULT);
}

int etarm_irq_set_handler(int irq, void (*handler)(void)) {
  if (irq < 0 || irq >= ETARM_BOARD_NUM_IRQS) return -1;
  uint32_t word = (uint32_t)irq / 32u, bit = 1u << ((uint32_t)irq % 32u);
  if (handler) {
    irq_handlers[irq] = handler;
    __asm__ volatile("dsb" ::: "memory");
    ETARM_NVIC_ISER(word) = bit;
  } else {
    ETARM_NVIC_ICER(word) = bit;
    __asm__ volatile("dsb\n isb" ::: "memory");
    irq_handlers[irq] = 0;
  }
  return 0;
}

/* ---- reset -------------------------------------------------------------------------- */
static char cmdline[1024];
static char *argv_storage[64];

/* Splits the semihosting command line (program name first) at spaces; no quoting. */
static int read_argv(void) {
  uint32_t block[2] = {(uint32_t)(uintptr_t)cmdline, sizeof cmdline - 1};
  int argc = 0;
  if (etarm_semihost(ETARM_SEMI_SYS_GET_CMDLINE, block) != 0) cmdline[0] = 0;
  for (char *p = cmdline; *p && argc < (int)(sizeof argv_storage / sizeof *argv_storage) - 1;) {
    while (*p == ' ') *p++ = 0;
    if (!*p) break;
    argv_storage[argc++] = p;
    while (*p && *p != ' ') ++p;
  }
  if (argc == 0) argv_storage[argc++] = (char *)"program";
  argv_storage[argc] = 0;
  return argc;
}

/* Runs with the FPU on and the stack set; nothing in RAM initialised yet. Must not touch
 * .data/.bss before the tables are applied. */
__attribute__((noreturn, used)) static void reset_c(void) {
  for (const uint32_t *row = __etarm_copy_table_start; row < __etarm_copy_table_end; row += 3) {
    const uint32_t *src = (const uint32_t *)(uintptr_t)row[0];
    uint32_t *dst = (uint32_t *)(uintptr_t)row[1];
    if (src != dst) {
      for (uint32_t n = row[2] / 4u; n; --n) *dst++ = *src++;
    }
  }
  for (const uint32_t *row = __etarm_zero_table_start; row < __etarm_zero_table_end; row += 2) {
    uint32_t *dst = (uint32_t *)(uintptr_t)row[0];
    for (uint32_t n = row[1] / 4u; n; --n) *dst++ = 0;
  }
  _set_tls(__etarm_tls_start);

  ETARM_SCB_VTOR = (uint32_t)(uintptr_t)etarm_vector_table;
  /* Report MemManage/BusFault/UsageFault(/SecureFault) as themselves, not as HardFault,
   * and trap integer division by zero instead of returning 0. */
  ETARM_SCB_SHCSR |= ETARM_SHCSR_MEMFAULTENA | ETARM_SHCSR_BUSFAULTENA | ETARM_SHCSR_USGFAULTENA
#if ETARM_ARMV8M
                     | ETARM_SHCSR_SECUREFAULTENA
#endif
      ;
  ETARM_SCB_CCR |= ETARM_CCR_DIV_0_TRP;
  __asm__ volatile("dsb\n isb" ::: "memory");

  etarm_cycles_init();
  etarm_console_init();
  __asm__ volatile("cpsie i" ::: "memory");

  /* C++ constructors and __attribute__((constructor)), in the order the linker sorted. */
  for (const etarm_init_fn *f = __preinit_array_start; f < __preinit_array_end; ++f) (*f)();
  for (const etarm_init_fn *f = __init_array_start; f < __init_array_end; ++f) (*f)();
  int argc = read_argv();
  exit(main(argc, argv_storage));
}

/* The first instructions after reset: C code may use FP/MVE registers (memcpy does), so
 * CP10/CP11 are enabled before any of it runs. */
__attribute__((naked, noreturn)) void etarm_reset_handler(void) {
  __asm__ volatile(
      "cpsid i\n"
      "ldr r0, =__etarm_stack_top\n"
      "msr msp, r0\n"
#if ETARM_ARMV8M
      "ldr r0, =__etarm_stack_limit\n"
      "msr msplim, r0\n" /* stack overflow -> UsageFault (STKOF) instead of corruption */
#endif
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
      "ldr r0, =0xE000ED88\n" /* CPACR: full access to CP10 and CP11 (FPU and MVE) */
      "ldr r1, [r0]\n"
      "orr r1, r1, #(0xF << 20)\n"
      "str r1, [r0]\n"
      "dsb\n"
      "isb\n"
#endif
      "b reset_c\n");
}

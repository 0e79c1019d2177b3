/*
 * Internal to //runtime/platform/cortex_m: the few Armv7-M / Armv8-M system registers the
 * platform layer touches (addresses from the Arm v7-M / v8-M Architecture Reference
 * Manuals), the semihosting calls, and what the board library and linker script provide.
 */
#ifndef ETARM_PLATFORM_CORTEX_M_H_
#define ETARM_PLATFORM_CORTEX_M_H_

#include <stddef.h>
#include <stdint.h>

#define ETARM_REG32(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

/* System Control Block */
#define ETARM_SCB_ICSR ETARM_REG32(0xE000ED04u)
#define ETARM_SCB_VTOR ETARM_REG32(0xE000ED08u)
#define ETARM_SCB_CCR ETARM_REG32(0xE000ED14u)
#define ETARM_SCB_SHCSR ETARM_REG32(0xE000ED24u)
#define ETARM_SCB_CFSR ETARM_REG32(0xE000ED28u)
#define ETARM_SCB_HFSR ETARM_REG32(0xE000ED2Cu)
#define ETARM_SCB_MMFAR ETARM_REG32(0xE000ED34u)
#define ETARM_SCB_BFAR ETARM_REG32(0xE000ED38u)
#define ETARM_SCB_CPACR ETARM_REG32(0xE000ED88u)
#define ETARM_SCB_SFSR ETARM_REG32(0xE000EDE4u) /* Armv8-M Security Extension */
#define ETARM_SCB_SFAR ETARM_REG32(0xE000EDE8u)
#define ETARM_DEMCR ETARM_REG32(0xE000EDFCu)

#define ETARM_CCR_DIV_0_TRP (1u << 4)
#define ETARM_SHCSR_MEMFAULTENA (1u << 16)
#define ETARM_SHCSR_BUSFAULTENA (1u << 17)
#define ETARM_SHCSR_USGFAULTENA (1u << 18)
#define ETARM_SHCSR_SECUREFAULTENA (1u << 19)
#define ETARM_DEMCR_TRCENA (1u << 24)

/* Data Watchpoint and Trace unit */
#define ETARM_DWT_CTRL ETARM_REG32(0xE0001000u)
#define ETARM_DWT_CYCCNT ETARM_REG32(0xE0001004u)
#define ETARM_DWT_LAR ETARM_REG32(0xE0001FB0u) /* Cortex-M7 keeps DWT locked until written */
#define ETARM_DWT_CTRL_NOCYCCNT (1u << 25)
#define ETARM_DWT_CTRL_CYCCNTENA (1u << 0)

/* SysTick */
#define ETARM_SYST_CSR ETARM_REG32(0xE000E010u)
#define ETARM_SYST_RVR ETARM_REG32(0xE000E014u)
#define ETARM_SYST_CVR ETARM_REG32(0xE000E018u)

/* NVIC: one bit per interrupt in 32-bit words */
#define ETARM_NVIC_ISER(n) ETARM_REG32(0xE000E100u + 4u * (n))
#define ETARM_NVIC_ICER(n) ETARM_REG32(0xE000E180u + 4u * (n))

#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__) || defined(__ARM_ARCH_8M_BASE__)
#define ETARM_ARMV8M 1
#else
#define ETARM_ARMV8M 0
#endif

/* Semihosting (Arm "Semihosting for AArch32 and AArch64", version 2) */
enum {
  ETARM_SEMI_SYS_OPEN = 0x01,
  ETARM_SEMI_SYS_WRITEC = 0x03,
  ETARM_SEMI_SYS_WRITE0 = 0x04,
  ETARM_SEMI_SYS_WRITE = 0x05,
  ETARM_SEMI_SYS_GET_CMDLINE = 0x15,
  ETARM_SEMI_SYS_EXIT = 0x18,
  ETARM_SEMI_SYS_EXIT_EXTENDED = 0x20,
};
#define ETARM_SEMI_ADP_STOPPED_APPLICATION_EXIT 0x20026u

static inline uintptr_t etarm_semihost(uint32_t op, const void *arg) {
  register uintptr_t r0 __asm__("r0") = op;
  register const void *r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

/* Writes a NUL-terminated string without touching stdio or the heap: for the fault path. */
void etarm_semihost_write0(const char *s);
/* The raw exit (no flushing, no trailer). */
__attribute__((noreturn)) void etarm_semihost_exit(int code);

/* From the board library (cortex_m_board() in board.bzl compiles board.c per board). */
extern const uint32_t etarm_board_cpu_hz_value;
extern const char etarm_board_name_value[];
extern const uint32_t etarm_board_num_irqs;

/* Start-up steps implemented in the other files of this library. */
void etarm_console_init(void);
void etarm_console_flush(void);
void etarm_cycles_init(void);
void etarm_systick_handler(void);
void etarm_fault_entry(void);
void etarm_irq_dispatch(void);

#endif /* ETARM_PLATFORM_CORTEX_M_H_ */

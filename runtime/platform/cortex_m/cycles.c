/*
 * etarm_cycles(): the DWT cycle counter where it counts, else SysTick at the CPU clock
 * with a software high word (QEMU has no DWT; its SysTick follows the virtual clock).
 */
#include <stdint.h>

#include "cortex_m.h"
#include "etarm/platform.h"

#ifndef ETARM_BOARD_CPU_HZ
#error "ETARM_BOARD_CPU_HZ must be defined by the board (cortex_m_board in board.bzl)"
#endif
#ifndef ETARM_BOARD_NAME
#error "ETARM_BOARD_NAME must be defined by the board (cortex_m_board in board.bzl)"
#endif

static int use_dwt;
/* DWT: the last 32-bit value read and the wraps seen. */
static uint32_t dwt_last;
static uint64_t dwt_high;
/* SysTick: 24-bit down-counter reloaded from SYST_RVR; each wrap adds 2^24 here. */
static volatile uint64_t systick_high;
#define SYSTICK_PERIOD (1u << 24)

void etarm_cycles_init(void) {
  ETARM_DEMCR |= ETARM_DEMCR_TRCENA;
  __asm__ volatile("dsb\n isb" ::: "memory");
  ETARM_DWT_LAR = 0xC5ACCE55u; /* unlock where the lock exists (Cortex-M7); ignored elsewhere */
  if (!(ETARM_DWT_CTRL & ETARM_DWT_CTRL_NOCYCCNT)) {
    ETARM_DWT_CYCCNT = 0;
    ETARM_DWT_CTRL |= ETARM_DWT_CTRL_CYCCNTENA;
    /* A DWT that is absent reads as zero and never counts. */
    uint32_t before = ETARM_DWT_CYCCNT;
    for (volatile int i = 0; i < 16; ++i) {
    }
    use_dwt = ETARM_DWT_CYCCNT != before;
  }
  if (!use_dwt) {
    ETARM_SYST_RVR = SYSTICK_PERIOD - 1u;
    ETARM_SYST_CVR = 0;
    ETARM_SYST_CSR = 0x7u; /* processor clock, interrupt on wrap, enable */
  }
}

void etarm_systick_handler(void) { systick_high += SYSTICK_PERIOD; }

uint64_t etarm_cycles(void) {
  if (use_dwt) {
    uint32_t now = ETARM_DWT_CYCCNT;
    if (now < dwt_last) dwt_high += 1ull << 32;
    dwt_last = now;
    return dwt_high | now;
  }
  uint64_t high;
  uint32_t value, pending;
  do {
    high = systick_high;
    value = ETARM_SYST_CVR;
    pending = ETARM_SCB_ICSR & ETARM_ICSR_PENDSTSET;
  } while (high != systick_high);
  /* Wrapped, but the interrupt that counts the wrap has not run yet (interrupts masked, or
   * it is about to be taken): a just-reloaded (high) value belongs to the next period. */
  if (pending && value > SYSTICK_PERIOD / 2) high += SYSTICK_PERIOD;
  /* With interrupts masked across more than one wrap the count falls behind: time code
   * with interrupts enabled. */
  return high + (SYSTICK_PERIOD - 1u - value);
}

int etarm_cycles_exact(void) { return use_dwt; }

uint32_t etarm_cpu_hz(void) { return ETARM_BOARD_CPU_HZ; }

uint64_t etarm_time_us(void) { return etarm_cycles() / (ETARM_BOARD_CPU_HZ / 1000000u); }

const char *etarm_board_name(void) { return ETARM_BOARD_NAME; }

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

#define SYSTICK_PERIOD (1u << 24)

static int use_dwt;
/* DWT: the last 32-bit value read and the wraps seen. */
static uint32_t dwt_last;
static uint64_t dwt_high;
/* SysTick: a 24-bit down-counter reloaded from SYST_RVR. A wrap shows as the counter being
 * higher than at the previous look, and the SysTick interrupt looks once per period, so no
 * wrap goes unseen. (Counting wraps in the interrupt alone races with reading the counter:
 * QEMU reloads the counter before it raises the interrupt.) */
static uint32_t systick_last = SYSTICK_PERIOD - 1u;
static uint64_t systick_high;

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
    /* The counter starts at 0 and loads RVR on its first tick; QEMU does that load from its
     * timer thread, late under load. Until then it reads 0 and time seems to stand still. */
    for (uint32_t spins = 0; ETARM_SYST_CVR == 0 && spins < 10000000u; ++spins) {
    }
  }
}

/* SysTick cycles; runs with interrupts masked (or from the SysTick handler). */
static uint64_t systick_observe(void) {
  uint32_t value = ETARM_SYST_CVR;
  if (value > systick_last) systick_high += SYSTICK_PERIOD;
  systick_last = value;
  return systick_high + (SYSTICK_PERIOD - 1u - value);
}

void etarm_systick_handler(void) { (void)systick_observe(); }

uint64_t etarm_cycles(void) {
  if (use_dwt) {
    uint32_t now = ETARM_DWT_CYCCNT;
    if (now < dwt_last) dwt_high += 1ull << 32;
    dwt_last = now;
    return dwt_high | now;
  }
  /* With interrupts masked for more than a period (2^24 cycles) a wrap can go unseen:
   * time code with interrupts enabled. */
  uint32_t primask;
  __asm__ volatile("mrs %0, primask\n cpsid i" : "=r"(primask)::"memory");
  uint64_t cycles = systick_observe();
  __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
  return cycles;
}

int etarm_cycles_exact(void) { return use_dwt; }

uint32_t etarm_cpu_hz(void) { return ETARM_BOARD_CPU_HZ; }

uint64_t etarm_time_us(void) { return etarm_cycles() / (ETARM_BOARD_CPU_HZ / 1000000u); }

const char *etarm_board_name(void) { return ETARM_BOARD_NAME; }

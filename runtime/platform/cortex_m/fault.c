/*
 * Fault reporting: prints which fault, its status bits, the faulting PC/LR and fault
 * address, then exits with ETARM_EXIT_FAULT. Runs on its own stack (a stack overflow
 * leaves none) and uses neither stdio nor the heap.
 */
#include <stdint.h>

#include "cortex_m.h"
#include "etarm/platform.h"

extern char __etarm_ram_regions_start[], __etarm_ram_regions_end[];

static uint32_t fault_stack[256] __attribute__((aligned(8)));
uint32_t *const etarm_fault_stack_top = fault_stack + sizeof fault_stack / sizeof *fault_stack;

/* Bit names of CFSR (MMFSR | BFSR << 8 | UFSR << 16), HFSR and SFSR. */
static const struct {
  uint32_t bit;
  const char *name;
} cfsr_bits[] = {
    {1u << 0, "IACCVIOL"},   {1u << 1, "DACCVIOL"},    {1u << 3, "MUNSTKERR"},
    {1u << 4, "MSTKERR"},    {1u << 5, "MLSPERR"},     {1u << 8, "IBUSERR"},
    {1u << 9, "PRECISERR"},  {1u << 10, "IMPRECISERR"}, {1u << 11, "UNSTKERR"},
    {1u << 12, "STKERR"},    {1u << 13, "LSPERR"},     {1u << 16, "UNDEFINSTR"},
    {1u << 17, "INVSTATE"},  {1u << 18, "INVPC"},      {1u << 19, "NOCP"},
    {1u << 20, "STKOF"},     {1u << 24, "UNALIGNED"},  {1u << 25, "DIVBYZERO"},
}, hfsr_bits[] = {
    {1u << 1, "VECTTBL"}, {1u << 30, "FORCED"}, {1u << 31, "DEBUGEVT"},
}, sfsr_bits[] = {
    {1u << 0, "INVEP"},   {1u << 1, "INVIS"},   {1u << 2, "INVER"},  {1u << 3, "AUVIOL"},
    {1u << 4, "INVTRAN"}, {1u << 5, "LSPERR"},  {1u << 7, "LSERR"},
};

static void put(const char *s) { etarm_semihost_write0(s); }

static void put_hex(const char *label, uint32_t value) {
  char buf[20];
  int i = 0;
  buf[i++] = ' ';
  while (*label) buf[i++] = *label++;
  buf[i++] = '=';
  buf[i++] = '0';
  buf[i++] = 'x';
  for (int shift = 28; shift >= 0; shift -= 4) buf[i++] = "0123456789abcdef"[(value >> shift) & 0xFu];
  buf[i] = 0;
  put(buf);
}

#define PUT_BITS(table, value)                                                  \
  do {                                                                          \
    for (unsigned k = 0; k < sizeof(table) / sizeof(table)[0]; ++k)             \
      if ((value) & (table)[k].bit) {                                           \
        put(" ");                                                               \
        put((table)[k].name);                                                   \
      }                                                                         \
  } while (0)

/* A stacked frame is only read if it lies inside RAM the image owns: after a stack
 * overflow or a corrupted SP, reading it would fault again inside the handler. */
static int frame_readable(const uint32_t *frame) {
  uintptr_t p = (uintptr_t)frame;
  for (const uint32_t *r = (const uint32_t *)__etarm_ram_regions_start;
       r < (const uint32_t *)__etarm_ram_regions_end; r += 2) {
    if (p >= r[0] && p + 32u <= r[0] + r[1] && (p & 3u) == 0) return 1;
  }
  return 0;
}

__attribute__((noreturn, used)) void etarm_fault_report(const uint32_t *frame, uint32_t exc_return) {
  static const char *const names[] = {"?",          "?",        "NMI",        "HardFault",
                                      "MemManage",  "BusFault", "UsageFault", "SecureFault"};
  uint32_t ipsr;
  __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
  uint32_t exc = ipsr & 0x1FFu;
  uint32_t cfsr = ETARM_SCB_CFSR, hfsr = ETARM_SCB_HFSR;

  put("\n[etarm] FAULT: ");
  put(exc < 8 ? names[exc] : "exception");
  PUT_BITS(cfsr_bits, cfsr);
  if (exc == 3) PUT_BITS(hfsr_bits, hfsr);
#if ETARM_ARMV8M && defined(__ARM_FEATURE_CMSE)
  uint32_t sfsr = ETARM_SCB_SFSR;
  if (exc == 7) PUT_BITS(sfsr_bits, sfsr);
#endif
  put("\n[etarm]");
  put_hex("CFSR", cfsr);
  put_hex("HFSR", hfsr);
  if (cfsr & (1u << 7)) put_hex("MMFAR", ETARM_SCB_MMFAR);
  if (cfsr & (1u << 15)) put_hex("BFAR", ETARM_SCB_BFAR);
#if ETARM_ARMV8M && defined(__ARM_FEATURE_CMSE)
  if (exc == 7) {
    put_hex("SFSR", sfsr);
    if (sfsr & (1u << 6)) put_hex("SFAR", ETARM_SCB_SFAR);
  }
#endif
  put_hex("EXC_RETURN", exc_return);
  put("\n[etarm]");
  if (!(cfsr & (1u << 20)) && frame_readable(frame)) {
    put_hex("PC", frame[6]);
    put_hex("LR", frame[5]);
    put_hex("SP", (uint32_t)(uintptr_t)frame);
    put_hex("xPSR", frame[7]);
  } else {
    put_hex("SP", (uint32_t)(uintptr_t)frame);
    put(" (no readable exception frame)");
  }
  put("\n");
  etarm_exit(ETARM_EXIT_FAULT);
}

/* Which stack holds the exception frame is in EXC_RETURN bit 2. Then: a fresh stack,
 * no stack limit, and the report. */
__attribute__((naked, noreturn)) void etarm_fault_entry(void) {
  __asm__ volatile(
      "tst lr, #4\n"
      "ite eq\n"
      "mrseq r0, msp\n"
      "mrsne r0, psp\n"
      "mov r1, lr\n"
#if ETARM_ARMV8M
      "movs r2, #0\n"
      "msr msplim, r2\n"
#endif
      "ldr r2, =etarm_fault_stack_top\n"
      "ldr r2, [r2]\n"
      "mov sp, r2\n"
      "b etarm_fault_report\n");
}

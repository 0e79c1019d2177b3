/*
 * etarm bare-metal platform layer: the whole C API a program on a Cortex-M board sees.
 *
 * Link a board library (//runtime/platform:board, which picks e.g.
 * //runtime/platform/corstone300 from the target platform) into a cc_binary and the
 * program gets: start-up code (vector table, .data/.bss/TLS set-up, FPU/MVE enable),
 * C and C++ run-time initialisation, argc/argv from the simulator's command line,
 * stdout/stderr on the semihosting console, malloc from a heap region, fault reporting,
 * and a cycle counter. main() returns its exit code; exit(n) and etarm_exit(n) too.
 *
 * Console and exit go through Arm semihosting, which QEMU (-semihosting-config
 * enable=on,target=native) and the Corstone FVPs (-C cpu0.semihosting-enable=1)
 * implement. On hardware without a debugger attached, semihosting calls fault.
 */
#ifndef ETARM_PLATFORM_H_
#define ETARM_PLATFORM_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit code of a program stopped by a CPU fault (HardFault, MemManage, BusFault,
 * UsageFault, SecureFault, NMI) after the fault handler printed its report. */
#define ETARM_EXIT_FAULT 250

/* Writes len bytes to the console (stdout), unbuffered: earlier printf() output is
 * flushed first, so the two interleave in program order. */
void etarm_console_write(const char *data, size_t len);

/* Flushes stdio and ends the program with `code` as the simulator's exit status.
 * Before exiting it prints "[etarm] exit <code>" so runs on simulators that drop the
 * status (the FVPs) still report it. Does not run atexit handlers or destructors:
 * exit() does, then calls this. */
__attribute__((noreturn)) void etarm_exit(int code);

/* CPU cycles since reset, 64-bit. Counted by the DWT cycle counter where the core has
 * one; where it does not count (QEMU models no DWT) by SysTick at the CPU clock, which
 * QEMU derives from its virtual clock: exact only with -icount. Call it at least once per
 * 2^32 cycles (2 minutes at 32 MHz) so DWT wrap-around is seen. */
uint64_t etarm_cycles(void);

/* 1 when etarm_cycles() comes from the DWT cycle counter, 0 for the SysTick fallback. */
int etarm_cycles_exact(void);

/* The board's nominal CPU clock in Hz (what etarm_time_us() divides by). */
uint32_t etarm_cpu_hz(void);

/* Microseconds since reset at the nominal clock: etarm_cycles() / (etarm_cpu_hz() / 1e6). */
uint64_t etarm_time_us(void);

/* The board's name, e.g. "corstone300". */
const char *etarm_board_name(void);

/* Installs `handler` for external interrupt `irq` (0-based, as in the board's manual) and
 * enables it in the NVIC; NULL disables it. Returns 0, or -1 if irq is out of range. */
int etarm_irq_set_handler(int irq, void (*handler)(void));

/* Section attributes for data that must not sit in the default regions. Each board's
 * memory map (memory_*.ld) decides where these sections go; on Corstone-300: */
/* read-only blobs that are large (a .pte): DDR, loaded with the image */
#define ETARM_SECTION_MODEL __attribute__((section(".etarm.model"), aligned(16)))
/* large zero-initialised buffers the NPU may access (tensor arenas): internal SRAM */
#define ETARM_SECTION_ARENA __attribute__((section(".etarm.arena"), aligned(16)))
/* large zero-initialised buffers nothing time-critical touches: DDR */
#define ETARM_SECTION_DDR_BSS __attribute__((section(".etarm.ddr_bss"), aligned(16)))
/* hot code: instruction TCM */
#define ETARM_SECTION_FAST_CODE __attribute__((section(".etarm.fast_code")))
/* small hot data: data TCM (not reachable by the NPU) */
#define ETARM_SECTION_FAST_DATA __attribute__((section(".etarm.fast_data")))

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ETARM_PLATFORM_H_ */

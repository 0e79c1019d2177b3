"""cortex_m_board(): a board library = the shared Cortex-M platform layer + a memory map.

A program links the board library (directly, or through //runtime/platform:board) and gets
start-up code, semihosting console/exit, fault reports, cycle counter and heap; the linker
script is the board's memory map followed by //runtime/platform/cortex_m:sections.ld.
"""

load("@rules_cc//cc:defs.bzl", "cc_library")

def cortex_m_board(name, memory_map, board_name, cpu_hz, num_irqs, target_compatible_with, **kwargs):
    """Declares the cc_library `name` for one board.

    Args:
      name: target name.
      memory_map: linker-script fragment with MEMORY and the REGION_ALIAS lines that
        sections.ld expects (see runtime/platform/corstone300/memory_sse300.ld).
      board_name: what etarm_board_name() returns.
      cpu_hz: nominal CPU clock in Hz (etarm_cpu_hz(), etarm_time_us()).
      num_irqs: external interrupts the NVIC has (sizes the vector table).
      target_compatible_with: constraints of platforms this board library links for.
      **kwargs: passed to the cc_library (e.g. visibility).
    """
    linker_script = name + ".ld"
    native.genrule(
        name = name + "_linker_script",
        srcs = [memory_map, Label("//runtime/platform/cortex_m:sections.ld")],
        outs = [linker_script],
        cmd = "cat $(SRCS) > $@",
        target_compatible_with = target_compatible_with,
    )
    cc_library(
        name = name,
        srcs = [Label("//runtime/platform/cortex_m:srcs")],
        additional_linker_inputs = [":" + linker_script],
        linkopts = [
            "-T$(execpath :%s)" % linker_script,
            # Our start-up code replaces picolibc's crt0.
            "-nostartfiles",
            # .init_array (writable by ELF convention) sits with the code, and no stack is
            # "executable" or not without an MMU: both warnings are moot on bare metal.
            "-Wl,--no-warn-rwx-segments",
            "-Wl,--no-warn-execstack",
        ],
        local_defines = [
            "ETARM_BOARD_NAME=\\\"%s\\\"" % board_name,
            "ETARM_BOARD_CPU_HZ=%du" % cpu_hz,
            "ETARM_BOARD_NUM_IRQS=%d" % num_irqs,
        ],
        copts = ["-Wextra"],
        # Nothing references the vector table or the reset handler by symbol.
        alwayslink = True,
        target_compatible_with = target_compatible_with,
        deps = [Label("//runtime/platform/cortex_m:api")],
        **kwargs
    )

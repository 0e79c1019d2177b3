"""an547_board(): a board library for QEMU's mps3-an547 (the Corstone-300 FPGA image), the
machine that runs the Corstone-300 board and the boards that stand in on it (corstone320)."""

load("//runtime/platform/cortex_m:board.bzl", "cortex_m_board")

def an547_board(name):
    """cortex_m_board `name` for the board of //platforms:board_<name>, run on the AN547."""
    cortex_m_board(
        name = name,
        board_name = name,
        # AN547's 32 MHz CPU clock (QEMU models the same).
        cpu_hz = 32000000,
        memory_map = Label("//runtime/platform/corstone300:memory_sse300.ld"),
        # QEMU's AN547 NVIC has 96 external interrupts (Ethos-U55 is IRQ 56).
        num_irqs = 96,
        target_compatible_with = [Label("//platforms:board_" + name)],
    )

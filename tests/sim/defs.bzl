"""Test rules that run a cross-compiled program in a simulator on the host.

  qemu_test       bare-metal ELF on qemu-system-arm (a Cortex-M board), semihosting console;
                  the program's exit code is the verdict.
  qemu_user_test  Linux aarch64 program under qemu-aarch64: static (musl) or dynamic (glibc;
                  the bazelw root holds arm64 glibc as a Debian multiarch system).
  fvp_test        bare-metal ELF on a Corstone FVP when one is configured
                  (--//tests/sim:fvp_corstone300=/path/to/FVP_Corstone_SSE-300_Ethos-U55),
                  otherwise on QEMU like qemu_test.

Each rule builds its `binary` for `platform` through a transition, so the tests run from a
plain `bazel test //...` on the host; the binary itself should carry
`target_compatible_with` so a host build skips it (bare_metal_program does that). A test is
compatible with the host and with its own platform's config (`--config=corstone300` runs
the Corstone-300 tests), and skipped in other cross configs (//platforms:compat.bzl).
Simulators come from the bazelw root (qemu-system-arm, qemu-aarch64 on PATH).

Shared attributes: args (after the program name on its command line), expect_exit_code
(default 0), expect_output (substrings the output must contain), plus the usual test
attributes (size, timeout, tags, ...). The simulator gets the test's timeout minus 5 s.
qemu_user_test also takes `data`: host-built files (e.g. a .pte) the program reads at their
runfiles path (the test runs in the workspace's runfiles directory).
"""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")
load("@rules_cc//cc:defs.bzl", "cc_binary")
load("//platforms:compat.bzl", "BARE_METAL", "host_or")
load("//toolchains:defs.bzl", "platform_transition", "transitioned_executable")

# Board platform (name in //platforms) -> QEMU machine and FVP settings.
BOARDS = {
    "corstone300": struct(
        qemu_machine = "mps3-an547",
        fvp_flag = "corstone300",
        fvp_cpu = "cpu0",
        fvp_args = [
            "-C",
            "mps3_board.visualisation.disable-visualisation=1",
            "-C",
            "mps3_board.telnetterminal0.start_telnet=0",
            "-C",
            "mps3_board.uart0.out_file=-",
            "-C",
            "mps3_board.uart0.unbuffered_output=1",
            "-C",
            "cpu0.semihosting-enable=1",
            "-C",
            "ethosu.num_macs=128",
        ],
    ),
    # No Cortex-M85 machine in QEMU: the AN547 M55 runs the image as a stand-in.
    "corstone320": struct(
        qemu_machine = "mps3-an547",
        fvp_flag = "corstone320",
        fvp_cpu = "mps4_board.subsystem.cpu0",
        fvp_args = [
            "-C",
            "mps4_board.visualisation.disable-visualisation=1",
            "-C",
            "vis_hdlcd.disable_visualisation=1",
            "-C",
            "mps4_board.telnetterminal0.start_telnet=0",
            "-C",
            "mps4_board.uart0.out_file=-",
            "-C",
            "mps4_board.uart0.unbuffered_output=1",
            "-C",
            "mps4_board.subsystem.cpu0.semihosting-enable=1",
            "-C",
            "mps4_board.subsystem.ethosu.num_macs=256",
        ],
    ),
    "mps2_an386": struct(qemu_machine = "mps2-an386", fvp_flag = None, fvp_cpu = None, fvp_args = None),
    "mps2_an500": struct(qemu_machine = "mps2-an500", fvp_flag = None, fvp_cpu = None, fvp_args = None),
    "mps2_an505": struct(qemu_machine = "mps2-an505", fvp_flag = None, fvp_cpu = None, fvp_args = None),
}

BOARDS["corstone300_nomve"] = BOARDS["corstone300"]

def _shell_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"

def _shell_words(words):
    return " ".join([_shell_quote(w) for w in words])

def _board(ctx):
    label = ctx.attr.platform.label
    if label.package != "platforms" or label.name not in BOARDS:
        fail("%s: platform %s is not a board in BOARDS (tests/sim/defs.bzl)" % (ctx.label, label))
    return BOARDS[label.name]

def _sim_test_impl(ctx, mode):
    target, program = transitioned_executable(ctx)
    machine = ""
    fvp = ""
    fvp_cpu = ""
    extra_runfiles = []
    fvp_args = []
    qemu_args = list(ctx.attr.qemu_args)
    if mode == "qemu-system":
        board = _board(ctx)
        machine = ctx.attr.machine or board.qemu_machine
        if ctx.attr.icount:
            qemu_args = ["-icount", "shift=5,align=off,sleep=off"] + qemu_args
    elif mode == "fvp":
        board = _board(ctx)
        machine = ctx.attr.machine or board.qemu_machine
        if ctx.attr.fvp:
            fvp = ctx.executable.fvp.short_path
            extra_runfiles.append(ctx.attr.fvp[DefaultInfo].default_runfiles)
        elif board.fvp_flag:
            fvp = getattr(ctx.attr, "_fvp_" + board.fvp_flag)[BuildSettingInfo].value
        if fvp:
            fvp_cpu = board.fvp_cpu
            fvp_args = list(board.fvp_args or []) + list(ctx.attr.fvp_args)
        else:
            mode = "qemu-system"  # no FVP configured: the QEMU model of the board
            if ctx.attr.icount:
                qemu_args = ["-icount", "shift=5,align=off,sleep=off"] + qemu_args

    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.expand_template(
        template = ctx.file._runner,
        output = script,
        is_executable = True,
        substitutions = {
            "%MODE%": mode,
            "%PROGRAM%": _shell_quote(program.short_path),
            "%MACHINE%": _shell_quote(machine),
            "%QEMU_ARGS%": _shell_words(qemu_args),
            "%FVP%": _shell_quote(fvp),
            "%FVP_ARGS%": _shell_words(fvp_args),
            "%FVP_CPU%": _shell_quote(fvp_cpu),
            "%EXPECT_EXIT%": str(ctx.attr.expect_exit_code),
            "%EXPECT_OUTPUT%": _shell_words(ctx.attr.expect_output),
        },
    )
    data_runfiles = [d[DefaultInfo].default_runfiles for d in getattr(ctx.attr, "data", [])]
    data_files = [f for d in getattr(ctx.attr, "data", []) for f in d[DefaultInfo].files.to_list()]
    runfiles = ctx.runfiles(files = [program] + data_files).merge_all(
        [target[DefaultInfo].default_runfiles] + extra_runfiles + data_runfiles,
    )
    return [DefaultInfo(executable = script, runfiles = runfiles)]

_COMMON_ATTRS = {
    "binary": attr.label(
        mandatory = True,
        cfg = platform_transition,
        doc = "The program (a cc_binary); built for `platform`.",
    ),
    "expect_exit_code": attr.int(default = 0, doc = "Exit code that makes the test pass."),
    "expect_output": attr.string_list(doc = "Substrings the program's output must contain."),
    "qemu_args": attr.string_list(doc = "Extra QEMU arguments."),
    "_runner": attr.label(default = ":runner.sh.tpl", allow_single_file = True),
    "_allowlist_function_transition": attr.label(
        default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
    ),
}

_BOARD_ATTRS = {
    "platform": attr.label(
        default = "//platforms:corstone300",
        doc = "Board platform to build `binary` for (a key of BOARDS).",
    ),
    "machine": attr.string(doc = "qemu-system-arm -M value; default: the board's."),
    "icount": attr.bool(
        default = False,
        doc = "Run QEMU with -icount shift=5: deterministic, ~1 SysTick cycle per instruction.",
    ),
}

def _qemu_test_impl(ctx):
    return _sim_test_impl(ctx, "qemu-system")

def _qemu_user_test_impl(ctx):
    return _sim_test_impl(ctx, "qemu-user")

def _fvp_test_impl(ctx):
    return _sim_test_impl(ctx, "fvp")

_qemu_test = rule(
    implementation = _qemu_test_impl,
    attrs = dict(_COMMON_ATTRS, **_BOARD_ATTRS),
    test = True,
    doc = "Runs a bare-metal program on qemu-system-arm; its exit code is the verdict.",
)

_qemu_user_test = rule(
    implementation = _qemu_user_test_impl,
    attrs = dict(
        _COMMON_ATTRS,
        platform = attr.label(
            default = "//platforms:linux_aarch64_musl",
            doc = "Linux platform to build `binary` for.",
        ),
        # Built in the test's own (host) configuration: compilers run there, not for aarch64.
        data = attr.label_list(allow_files = True, doc = "Files the program reads (runfiles paths)."),
    ),
    test = True,
    doc = "Runs an aarch64 Linux program under qemu-aarch64; its exit code is the verdict.",
)

_fvp_test = rule(
    implementation = _fvp_test_impl,
    attrs = dict(
        _COMMON_ATTRS,
        fvp_args = attr.string_list(doc = "Extra FVP arguments (e.g. -C ethosu.num_macs=256)."),
        fvp = attr.label(
            executable = True,
            cfg = "exec",
            doc = "An FVP from the build (overrides the --//tests/sim:fvp_* flags).",
        ),
        _fvp_corstone300 = attr.label(default = "//tests/sim:fvp_corstone300"),
        _fvp_corstone320 = attr.label(default = "//tests/sim:fvp_corstone320"),
        **_BOARD_ATTRS
    ),
    test = True,
    doc = "Runs a bare-metal program on the board's FVP if configured, else on QEMU.",
)

def bare_metal_program(name, deps = [], **kwargs):
    """A cc_binary for boards: links the target platform's board library
    (//runtime/platform:board) and is skipped by host builds."""
    cc_binary(
        name = name,
        deps = deps + [Label("//runtime/platform:board")],
        target_compatible_with = BARE_METAL,
        **kwargs
    )

def _on_host_or_platform(rule_fn, default_platform):
    def test(name, platform = default_platform, **kwargs):
        rule_fn(name = name, platform = platform, target_compatible_with = host_or(platform), **kwargs)

    return test

qemu_test = _on_host_or_platform(_qemu_test, "//platforms:corstone300")
qemu_user_test = _on_host_or_platform(_qemu_user_test, "//platforms:linux_aarch64_musl")
fvp_test = _on_host_or_platform(_fvp_test, "//platforms:corstone300")

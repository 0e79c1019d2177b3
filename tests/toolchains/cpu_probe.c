// Freestanding program (no board, no C library) built for each core: its ELF build
// attributes show which flags the toolchain picked for that core.
void cpu_probe_entry(void);

volatile float values[64];

void cpu_probe_entry(void) {
  for (int i = 0; i < 64; ++i) values[i] = values[i] * 2.0f + 1.0f;
  for (;;) {
  }
}

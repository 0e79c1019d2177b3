// Runner stand-in for etarm_firmware's test: the embedded blob must be intact (size and
// FNV-1a hash given as arguments), aligned, and in the board's bulk region.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "etarm/model.h"
#include "etarm/platform.h"

int main(int argc, char **argv) {
  if (argc != 4) {
    printf("usage: model_check SIZE FNV1A32 MIN_ADDRESS\n");
    return 2;
  }
  uint32_t want_size = (uint32_t)strtoul(argv[1], NULL, 0);
  uint32_t want_hash = (uint32_t)strtoul(argv[2], NULL, 0);
  uintptr_t min_address = (uintptr_t)strtoul(argv[3], NULL, 0);
  uint32_t hash = 2166136261u;
  for (uint32_t i = 0; i < etarm_model_size; ++i) hash = (hash ^ etarm_model_data[i]) * 16777619u;
  printf("model at %p: %lu bytes, fnv1a 0x%08lx\n", (const void *)etarm_model_data,
         (unsigned long)etarm_model_size, (unsigned long)hash);
  int ok = etarm_model_size == want_size && hash == want_hash &&
           ((uintptr_t)etarm_model_data & 63u) == 0 && (uintptr_t)etarm_model_data >= min_address;
  printf("%s\n", ok ? "model OK" : "model WRONG");
  return ok ? 0 : 1;
}

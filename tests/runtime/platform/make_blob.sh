#!/bin/sh
# usage: make_blob.sh N  -> N bytes on stdout, byte i = (i * 7 + 3) & 0xff
# (perl-base is part of every Debian system, the bazelw root included)
exec perl -e 'binmode STDOUT; print pack("C*", map { ($_ * 7 + 3) & 255 } 0 .. $ARGV[0] - 1)' "$1"

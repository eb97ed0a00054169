#!/usr/bin/env bash
# fio random 4 KiB writes with dedupe_percentage (half the pages repeat an
# earlier page's content), captured; with ftl.dedup the device stores each
# content once.
. "$(dirname "$0")/common.sh"
need fio fio
VERSIONS="$(fio --version)"
# FIO_SIZE: the file fio writes in; IO_SIZE: how much it writes in all;
# DEDUPE: the percentage of pages that repeat an earlier one (default 50);
# DIST: fio's random_distribution (default random: uniform).
SIZE=${SIZE:-256MiB}
FIO_SIZE=${FIO_SIZE:-96M}
IO_SIZE=${IO_SIZE:-384M}
capture fio-dedupe "$SIZE" fio --name=dedupe --filename=./fio.dat --size="$FIO_SIZE" --rw=randwrite \
    --bs=4k --random_distribution="${DIST:-random}" --ioengine=psync --dedupe_percentage="${DEDUPE:-50}" --io_size="$IO_SIZE" --fsync=256 \
    --randseed=42 --output=/dev/null

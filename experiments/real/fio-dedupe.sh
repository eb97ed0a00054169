#!/usr/bin/env bash
# fio random 4 KiB writes with dedupe_percentage (half the pages repeat an
# earlier page's content), captured; with ftl.dedup the device stores each
# content once.
. "$(dirname "$0")/common.sh"
need fio fio
SIZE=${SIZE:-256MiB}
capture fio-dedupe "$SIZE" fio --name=dedupe --filename=./fio.dat --size=96M --rw=randwrite \
    --bs=4k --ioengine=psync --dedupe_percentage=50 --io_size=384M --fsync=256 \
    --randseed=42 --output=/dev/null

#!/usr/bin/env bash
# Natural duplication: successive versions of one source tree unpacked side
# by side (a build worker's checkouts, or dated copies of a changing
# directory), each followed by a compressed backup of it (tar | gzip -1),
# the newest KEEP of both kept, each round synced to the device before the
# next. A file that did not change between versions is written again with
# the same bytes, page for page, so a deduplicating device sees real
# duplicate content that nobody generated for it; the backups are unique
# (compression leaves no repeated pages), as is the aging.
#
# The tree: ftlsim's own history (so any full clone can remake the capture
# offline): every STEP-th commit of LAST's first-parent line, traces/
# excluded (the corpus's own compressed traces). GIT, LAST and PATHS choose
# another repository (e.g. a bare mirror), end commit or part of the tree.
. "$(dirname "$0")/common.sh"
need git git
need tar tar
need gzip gzip
GIT=${GIT:-$(git -C "$ROOT" rev-parse --absolute-git-dir)}
LAST=${LAST:-HEAD}
STEP=${STEP:-1}
KEEP=${KEEP:-8}
SIZE=${SIZE:-256MiB}
PATHS=${PATHS:-. :(exclude)traces}
revs=$RUN/source-versions.revs
git --git-dir="$GIT" rev-list --first-parent --reverse "$LAST" | awk -v s="$STEP" 'NR % s == 0' > "$revs"
n=$(wc -l < "$revs")
[ "$n" -gt "$KEEP" ] || { echo "only $n versions of $LAST: fewer than KEEP=$KEEP" >&2; exit 2; }
VERSIONS="$(git --version); $(tar --version | head -1); $(gzip --version | head -1); $n versions of $GIT, $(head -c 12 "$revs")..$(tail -n 1 "$revs" | head -c 12) (first-parent, every $STEP), paths '$PATHS', $KEEP kept"
# Each path single-quoted for the script below (a pathspec's parentheses).
paths_q=$(set -f; for p in $PATHS; do printf "'%s' " "$p"; done)
cat > "$RUN/source-versions.sh" <<SCRIPT
set -e
i=0
while read -r rev; do
    i=\$((i + 1))
    mkdir "v\$i"
    git --git-dir='$GIT' archive "\$rev" -- $paths_q| tar x -C "v\$i"
    tar cf - "v\$i" | gzip -1 > "v\$i.tar.gz"
    if [ \$i -gt $KEEP ]; then rm -rf "v\$((i - $KEEP))" "v\$((i - $KEEP)).tar.gz"; fi
    sync
done < '$revs'
du -sh . >&2
SCRIPT
capture source-versions "$SIZE" sh "$RUN/source-versions.sh"

#!/usr/bin/env bash
# tools/layers.sh -- checks the layer order of the sources (run by tools/test.sh):
#   go <- weights <- nn <- mcts <- teach <- tools      (bench/, tests/ and fuzz/ may use all)
#   1. no #include "DIR/..." points up that order;
#   2. mcts/ sees nn/ only through nn/nn.h; a backend (nn/ref, nn/cpu, nn/cuda) sees weights/
#      only through the model description (weights/desc*.h);
#   3. tools/ (the thin front ends) calls no solver, search or network entry point: set-up,
#      solves, searches and evaluations go through the engine layer (teach/).
# Prints every violation as FILE:LINE: reason and exits 1 when there is any.
set -uo pipefail
cd "$(dirname "$0")/.."

declare -A rank=([go]=0 [weights]=1 [nn]=2 [mcts]=3 [teach]=4 [tools]=5)
bad=0
report() {
    echo "$1"
    bad=1
}

sources() {
    find "$@" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) | sort
}

for dir in go weights nn mcts teach tools; do
    [ -d "$dir" ] || continue
    while IFS= read -r file; do
        while IFS=: read -r line inc; do
            target=${inc%%/*}
            [ -n "${rank[$target]+x}" ] || continue
            if ((rank[$target] > rank[$dir])); then
                report "$file:$line: includes $inc: $dir/ may not depend on $target/"
            fi
            if [ "$dir" = mcts ] && [ "$target" = nn ] && [ "$inc" != nn/nn.h ]; then
                report "$file:$line: includes $inc: mcts/ sees nn/ only through nn/nn.h"
            fi
            case "$file" in
            nn/ref/* | nn/cpu/* | nn/cuda/*)
                if [ "$target" = weights ] && [[ "$inc" != weights/desc*.h ]]; then
                    report "$file:$line: includes $inc: a backend sees weights/ only through desc*.h"
                fi
                ;;
            esac
        done < <(grep -n -o '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*"' "$file" |
                 sed -E 's/^([0-9]+):.*"([^"]*)"$/\1:\2/')
    done < <(sources "$dir")
done

# Entry points of the solver, the search and the evaluator that front ends reach through teach/.
forbidden='go_tsumego_(setup|setup_why|solve|work_new|work_free)|mcts_(new|free|run|stop|set_params|set_position|set_root_moves|clear_tree|clear_cache|choose_move|analysis_get)|nn_(eval|eval_average|forward_again|context_new|context_free|model_load|model_from_desc)|nn_trainer_[a-z_]+|weights_load'
while IFS= read -r hit; do
    report "${hit%%:*}:$(cut -d: -f2 <<<"$hit"): calls ${hit##*:}: front ends go through teach/"
done < <(grep -n -o -E "\\b($forbidden)[[:space:]]*\\(" tools/*.c | sed -E 's/[[:space:]]*\($//')

if ((bad)); then
    echo "tools/layers.sh: the layer order is broken (see above)"
    exit 1
fi
echo "tools/layers.sh: layer order go <- weights <- nn <- mcts <- teach <- tools holds"

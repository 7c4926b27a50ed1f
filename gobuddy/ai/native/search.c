/* The PUCT search in C: the rules, the network's input planes and the tree of
 * gobuddy/ai/mcts.py, with the network left to the caller.
 *
 * gobuddy/ai/native_search.py builds this file into a shared library and drives it
 * through ctypes; its docstring is the contract. In short: the engine holds one game
 * position (its stones, the boards before it and the positions seen in the game) and
 * a search tree rooted at it; gs_set_root moves to another position, keeping the
 * subtree of a descendant (mcts.set_position); gs_collect descends the tree under
 * virtual loss and writes the input planes of the new leaves, the caller runs the
 * network on them, gs_finish expands the leaves and backs their values up. The
 * arithmetic is that of mcts.py and search_node.py operation for operation (float64,
 * the same order), so both make the same tree from the same network outputs;
 * tests/ai/test_native_search.py checks it.
 *
 * Rules (gobuddy/go/position.py): captures, no suicide, the simple-ko point, and with
 * superko on (the default) positional superko: a move may not recreate a whole-board
 * arrangement seen in the game or on the path from the root. Position keys are
 * Zobrist hashes of the stones with position.py's table (gs_set_zobrist), so the seen
 * positions of a gobuddy Position can be handed over as they are. Points are flat
 * indices, row-major from the top-left (gobuddy.go.coords); pass is n = size * size;
 * black is 1, white -1.
 *
 * Not checked here: that a position given to gs_set_root is one the rules can reach
 * (its stones, ko point and seen keys are taken as they come); board sizes above 19
 * are refused by gs_new.
 */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 361
#define PLANES 18
#define HISTORY 2

typedef struct {
    int8_t stones[MAXN];
    int8_t to_play;
    int16_t ko;        /* -1: none */
    int16_t last_move; /* -1: none; n: a pass */
    int32_t passes;
    int32_t move_count;
    uint64_t hash;
} Pos;

typedef struct Node {
    Pos pos;
    struct Node *parent;
    int index;                 /* in the parent's children */
    int nchild;                /* -1 until expanded */
    int16_t *moves;            /* legal moves, ascending, pass last */
    double *prior, *prior_raw, *N, *W, *S, *N1, *Q; /* one block of 7 * nchild */
    struct Node **children;    /* NULL until the first child is made */
    double nsum;               /* sum of N, virtual losses included */
    double fpu;
    int fpu_valid;
    long visits;
    double value_sum, square_sum, score_sum;
    double net_value;
    int terminal;
    double term_value, term_score;
    int pending;
    int8_t *legal;             /* n + 1 entries, from collection to expansion */
    double net_score;          /* the network's score lead (0 without a score head) */
    float *own;                /* the network's ownership, n entries, or NULL */
} Node;

typedef struct {
    Node *leaf;                /* its path is its ancestors up to the root */
} Leaf;

typedef struct {
    int size, n;
    int nbr[MAXN][4];
    int nbr_count[MAXN];
    uint64_t zob[2][MAXN];     /* [0] black, [1] white */
    double komi, c_puct, fpu_reduction, virtual_loss;
    double forced;             /* forced playouts' k at the root (0: off; gs_set_forced) */
    double utility, utility_scale; /* score utility: factor (lambda * 2/pi; 0: off) and scale (gs_set_utility) */
    int max_moves, batch_size;
    int superko;               /* positional superko (else the simple ko rule only) */
    /* the game: its position, the boards before it (most recent first), seen hashes */
    Pos game;
    int8_t history[HISTORY][MAXN];
    int history_len;
    uint64_t *seen_keys;
    uint8_t *seen_used;
    size_t seen_cap, seen_count;
    Node *root;
    Leaf *batch[2];            /* two batches: one under evaluation while the next is collected */
    int batch_len[2];
    /* scratch for flood fills */
    uint32_t stamp;
    uint32_t mark[MAXN];
    int stack[MAXN];
    int chain_of[MAXN];
    int chain_libs[MAXN];
    int8_t chain_color[MAXN];
    uint64_t chain_hash[MAXN];
    uint32_t lib_mark[MAXN];
    int members[MAXN];
    double scratch[MAXN + 1];
} Engine;

/* ------------------------------------------------------------------ small helpers */

static inline uint64_t zkey(const Engine *e, int color, int p) { return e->zob[color == 1 ? 0 : 1][p]; }

/* A stamp no mark array holds yet (both arrays share the counter). */
static uint32_t next_stamp(Engine *e) {
    if (++e->stamp == 0) { /* wrapped: clear every mark */
        memset(e->mark, 0, sizeof e->mark);
        memset(e->lib_mark, 0, sizeof e->lib_mark);
        e->stamp = 1;
    }
    return e->stamp;
}

/* numpy's pairwise summation of float64 (np.sum of a contiguous array), bit for bit. */
static double pairwise_sum(const double *a, long n) {
    if (n < 8) {
        double res = 0.;
        for (long i = 0; i < n; i++) res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8];
        long i;
        for (int j = 0; j < 8; j++) r[j] = a[j];
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; j++) r[j] += a[i + j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) res += a[i];
        return res;
    }
    long n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

/* ------------------------------------------------------------------ seen positions */

static int seen_insert_raw(uint64_t *keys, uint8_t *used, size_t cap, uint64_t h) {
    size_t i = (size_t)(h * 0x9E3779B97F4A7C15ULL) & (cap - 1);
    while (used[i]) {
        if (keys[i] == h) return 0;
        i = (i + 1) & (cap - 1);
    }
    used[i] = 1;
    keys[i] = h;
    return 1;
}

static int seen_has(const Engine *e, uint64_t h) {
    size_t i = (size_t)(h * 0x9E3779B97F4A7C15ULL) & (e->seen_cap - 1);
    while (e->seen_used[i]) {
        if (e->seen_keys[i] == h) return 1;
        i = (i + 1) & (e->seen_cap - 1);
    }
    return 0;
}

static int seen_add(Engine *e, uint64_t h) {
    if (2 * (e->seen_count + 1) > e->seen_cap) {
        size_t cap = e->seen_cap ? 2 * e->seen_cap : 1024;
        uint64_t *keys = calloc(cap, sizeof *keys);
        uint8_t *used = calloc(cap, 1);
        if (!keys || !used) { free(keys); free(used); return -1; }
        for (size_t i = 0; i < e->seen_cap; i++)
            if (e->seen_used[i]) seen_insert_raw(keys, used, cap, e->seen_keys[i]);
        free(e->seen_keys);
        free(e->seen_used);
        e->seen_keys = keys;
        e->seen_used = used;
        e->seen_cap = cap;
    }
    e->seen_count += (size_t)seen_insert_raw(e->seen_keys, e->seen_used, e->seen_cap, h);
    return 0;
}

/* seen from `node`: its position and its ancestors' (the path), then the game's */
static int seen_from(const Engine *e, const Node *node, uint64_t h) {
    for (const Node *a = node; a != NULL; a = a->parent)
        if (a->pos.hash == h) return 1;
    return seen_has(e, h);
}

/* ------------------------------------------------------------------ chains */

/* Label every chain of `p`: chain_of (-1 empty), chain_libs, chain_color, chain_hash. */
static void label_chains(Engine *e, const Pos *p) {
    int n = e->n, chains = 0;
    for (int i = 0; i < n; i++) e->chain_of[i] = -1;
    for (int start = 0; start < n; start++) {
        int8_t color = p->stones[start];
        if (!color || e->chain_of[start] >= 0) continue;
        int id = chains++, top = 0, libs = 0;
        uint32_t lib_stamp = next_stamp(e);
        uint64_t h = 0;
        e->chain_of[start] = id;
        e->stack[top++] = start;
        while (top) {
            int s = e->stack[--top];
            h ^= zkey(e, color, s);
            for (int k = 0; k < e->nbr_count[s]; k++) {
                int q = e->nbr[s][k];
                int8_t v = p->stones[q];
                if (v == 0) {
                    if (e->lib_mark[q] != lib_stamp) { e->lib_mark[q] = lib_stamp; libs++; }
                } else if (v == color && e->chain_of[q] < 0) {
                    e->chain_of[q] = id;
                    e->stack[top++] = q;
                }
            }
        }
        e->chain_libs[id] = libs;
        e->chain_color[id] = color;
        e->chain_hash[id] = h;
    }
}

/* Legal points (pass excluded) for the side to move of `node`'s position, as
 * position.py's legal_bits: an empty point next to an empty point, a liberty of an own
 * chain with two or more, or the last liberty of an opponent chain; not the ko point;
 * not a move that recreates a seen position. Needs label_chains of the position. */
static void legal_points(Engine *e, const Node *node, int8_t *legal) {
    const Pos *p = &node->pos;
    int n = e->n, color = p->to_play;
    for (int i = 0; i < n; i++) {
        legal[i] = 0;
        if (p->stones[i]) continue;
        int ok = 0;
        uint64_t h = p->hash ^ zkey(e, color, i);
        int seen_ids[4], nseen = 0;
        for (int k = 0; k < e->nbr_count[i]; k++) {
            int q = e->nbr[i][k];
            int8_t v = p->stones[q];
            if (v == 0) { ok = 1; continue; }
            int id = e->chain_of[q];
            if (v == color) {
                if (e->chain_libs[id] >= 2) ok = 1;
            } else if (e->chain_libs[id] == 1) {
                int dup = 0;
                for (int j = 0; j < nseen; j++) dup |= seen_ids[j] == id;
                if (!dup) { seen_ids[nseen++] = id; h ^= e->chain_hash[id]; }
                ok = 1;
            }
        }
        if (!ok) continue;
        if (i == p->ko) continue;
        if (e->superko && seen_from(e, node, h)) continue;
        legal[i] = 1;
    }
    legal[n] = 1; /* pass */
}

/* ------------------------------------------------------------------ playing */

/* Play `move` for the side to move (trusted legal), as Position.play. */
static void pos_play(Engine *e, Pos *p, int move) {
    int n = e->n, color = p->to_play;
    if (move == n) {
        p->passes += 1;
        p->ko = -1;
    } else {
        p->stones[move] = (int8_t)color;
        p->hash ^= zkey(e, color, move);
        int captured = 0, last_captured = -1;
        for (int k = 0; k < e->nbr_count[move]; k++) {
            int q = e->nbr[move][k];
            if (p->stones[q] != -color) continue;
            /* flood the chain at q; remove it when it has no liberty */
            uint32_t st = next_stamp(e);
            int top = 0, count = 0, libs = 0;
            int *members = e->members;
            e->mark[q] = st;
            e->stack[top++] = q;
            while (top) {
                int s = e->stack[--top];
                members[count++] = s;
                for (int j = 0; j < e->nbr_count[s]; j++) {
                    int r = e->nbr[s][j];
                    int8_t v = p->stones[r];
                    if (v == 0) libs++;
                    else if (v == -color && e->mark[r] != st) { e->mark[r] = st; e->stack[top++] = r; }
                }
            }
            if (libs == 0) {
                for (int j = 0; j < count; j++) {
                    p->stones[members[j]] = 0;
                    p->hash ^= zkey(e, -color, members[j]);
                }
                captured += count;
                last_captured = members[count - 1];
            }
        }
        p->ko = -1;
        if (captured == 1) {
            int own = 0, libs = 0;
            for (int k = 0; k < e->nbr_count[move]; k++) {
                int8_t v = p->stones[e->nbr[move][k]];
                own |= v == color;
                libs += v == 0;
            }
            if (!own && libs == 1) p->ko = (int16_t)last_captured;
        }
        p->passes = 0;
    }
    p->to_play = (int8_t)-color;
    p->move_count += 1;
    p->last_move = (int16_t)move;
}

/* Black's Tromp-Taylor lead with komi (scoring.py's tromp_taylor_margin). */
static double tromp_taylor(Engine *e, const Pos *p) {
    int n = e->n;
    double score = 0;
    for (int i = 0; i < n; i++) score += p->stones[i];
    uint32_t st = next_stamp(e);
    for (int start = 0; start < n; start++) {
        if (p->stones[start] || e->mark[start] == st) continue;
        int top = 0, count = 0, border = 0;
        e->mark[start] = st;
        e->stack[top++] = start;
        while (top) {
            int s = e->stack[--top];
            count++;
            for (int k = 0; k < e->nbr_count[s]; k++) {
                int q = e->nbr[s][k];
                int8_t v = p->stones[q];
                if (v == 0) {
                    if (e->mark[q] != st) { e->mark[q] = st; e->stack[top++] = q; }
                } else {
                    border |= v == 1 ? 1 : 2;
                }
            }
        }
        if (border == 1) score += count;
        else if (border == 2) score -= count;
    }
    return score - e->komi;
}

/* ------------------------------------------------------------------ features */

/* The input planes of `node` (features.py, FEATURE_VERSION 1) into `out` [PLANES][n]
 * and its legal moves into `legal` [n + 1]. The boards before it are its ancestors',
 * then the game's before the root (search.history_of); a missing one repeats the last
 * one found, the node's own when there is none (features.encode_batch). */
static void write_planes(Engine *e, const Node *node, float *out, int8_t *legal) {
    const Pos *p = &node->pos;
    int n = e->n, color = p->to_play;
    memset(out, 0, sizeof(float) * PLANES * (size_t)n);
    const int8_t *found[HISTORY];
    int count = 0;
    for (const Node *a = node->parent; a != NULL && count < HISTORY; a = a->parent) found[count++] = a->pos.stones;
    for (int j = 0; count < HISTORY && j < e->history_len; j++) found[count++] = e->history[j];
    const int8_t *boards[1 + HISTORY];
    boards[0] = p->stones;
    for (int h = 0; h < HISTORY; h++) boards[h + 1] = h < count ? found[h] : boards[h];
    for (int b = 0; b <= HISTORY; b++) {
        float *own = out + (size_t)(2 * b) * n, *opp = own + n;
        for (int i = 0; i < n; i++) {
            int v = boards[b][i] * color;
            if (v == 1) own[i] = 1.f;
            else if (v == -1) opp[i] = 1.f;
        }
    }
    label_chains(e, p);
    for (int i = 0; i < n; i++) {
        if (!p->stones[i]) continue;
        int libs = e->chain_libs[e->chain_of[i]];
        if (libs > 3) libs = 3;
        int plane = (p->stones[i] == color ? 6 : 9) + libs - 1;
        out[(size_t)plane * n + i] = 1.f;
    }
    legal_points(e, node, legal);
    for (int i = 0; i < n; i++) out[(size_t)12 * n + i] = (float)legal[i];
    if (p->ko >= 0) out[(size_t)13 * n + p->ko] = 1.f;
    if (p->last_move == n) {
        for (int i = 0; i < n; i++) out[(size_t)15 * n + i] = 1.f;
    } else if (p->last_move >= 0) {
        out[(size_t)14 * n + p->last_move] = 1.f;
    }
    if (color == 1)
        for (int i = 0; i < n; i++) out[(size_t)16 * n + i] = 1.f;
    for (int i = 0; i < n; i++) out[(size_t)17 * n + i] = 1.f;
}

/* ------------------------------------------------------------------ the tree */

static Node *node_new(const Pos *pos, Node *parent, int index) {
    Node *node = calloc(1, sizeof *node);
    if (!node) return NULL;
    node->pos = *pos;
    node->parent = parent;
    node->index = index;
    node->nchild = -1;
    return node;
}

static void node_free(Node *node) {
    if (!node) return;
    if (node->children)
        for (int i = 0; i < node->nchild; i++) node_free(node->children[i]);
    free(node->children);
    free(node->moves);
    free(node->prior);  /* the block of all seven arrays */
    free(node->legal);
    free(node->own);
    free(node);
}

/* search_node.change: add dn to child i's N (and nsum) and dw to its W, keeping N + 1
 * and Q; the first-play urgency is renewed when the visited set changes. */
static inline void change(Node *node, int i, double dn, double dw) {
    double old = node->N[i];
    double n = old + dn;
    double w = node->W[i] + dw;
    node->N[i] = n;
    node->W[i] = w;
    node->N1[i] = n + 1.0;
    node->nsum += dn;
    if (n > 0) node->Q[i] = w / n;
    if ((old > 0) != (n > 0)) node->fpu_valid = 0;
}

/* search_node.select: argmax of prior * k / (N + 1) + Q, the first on ties; with
 * forced > 0 (the root's forced playouts), among the children whose N is below
 * sqrt(forced * prior * sum N) when there are any. With a score utility, each term
 * gains utility * atan(mean / scale), mean = S / N if visited, else the node's
 * network score lead (search_node.score_bonus, the same operations). */
static int select_child(Engine *e, Node *node, double forced) {
    int m = node->nchild;
    if (!node->fpu_valid) {
        int count = 0;
        for (int i = 0; i < m; i++)
            if (node->N[i] > 0) e->scratch[count++] = node->prior[i];
        double mass = pairwise_sum(e->scratch, count);
        node->fpu = node->net_value - e->fpu_reduction * sqrt(mass);
        for (int i = 0; i < m; i++)
            if (node->N[i] <= 0) node->Q[i] = node->fpu;
        node->fpu_valid = 1;
    }
    double k = e->c_puct * sqrt(node->nsum > 1.0 ? node->nsum : 1.0);
    int best = 0, forced_best = -1;
    double top = -INFINITY, forced_top = -INFINITY;
    for (int i = 0; i < m; i++) {
        double score = node->prior[i] * k;
        score /= node->N1[i];
        score += node->Q[i];
        if (e->utility > 0) {
            double mean = node->N[i] > 0 ? node->S[i] / node->N[i] : node->net_score;
            mean /= e->utility_scale;
            score += e->utility * atan(mean);
        }
        if (score > top) { top = score; best = i; }
        if (forced > 0 && node->N[i] < sqrt(forced * node->prior[i] * node->nsum) && score > forced_top) {
            forced_top = score;
            forced_best = i;
        }
    }
    return forced_best >= 0 ? forced_best : best;
}

static Node *make_child(Engine *e, Node *parent, int i) {
    if (!parent->children) {
        parent->children = calloc((size_t)parent->nchild, sizeof *parent->children);
        if (!parent->children) return NULL;
    }
    Node *child = node_new(&parent->pos, parent, i);
    if (!child) return NULL;
    pos_play(e, &child->pos, parent->moves[i]);
    if (child->pos.passes >= 2 || child->pos.move_count >= e->max_moves) {
        double margin = tromp_taylor(e, &child->pos) * child->pos.to_play;
        child->terminal = 1;
        child->term_value = margin > 0 ? 1.0 : (margin < 0 ? -1.0 : 0.0);
        child->term_score = margin;
    }
    parent->children[i] = child;
    return child;
}

/* mcts._backup: one visit with `value`/`score` from the leaf's side to move, upward. */
static void backup(Engine *e, Node *leaf, double value, double score) {
    double vl = e->virtual_loss, dn = 1.0 - vl, square = value * value;
    leaf->visits += 1;
    leaf->value_sum += value;
    leaf->square_sum += square;
    leaf->score_sum += score;
    for (Node *a = leaf; a->parent != NULL; a = a->parent) {
        Node *node = a->parent;
        int i = a->index;
        value = -value;
        score = -score;
        change(node, i, dn, value + vl);
        node->S[i] += score;
        node->visits += 1;
        node->value_sum += value;
        node->square_sum += square;
        node->score_sum += score;
    }
}

/* search_node.expand for one leaf: its legal moves, priors (its policy on them,
 * renormalised as numpy does; uniform if that sums to 0), zeroed statistics and its
 * network value as the first-play urgency. Returns -1 when out of memory. */
static int expand(Engine *e, Node *node, const double *policy, double value) {
    int n = e->n, m = 0;
    for (int i = 0; i <= n; i++) m += node->legal[i] != 0;
    node->moves = malloc(sizeof(int16_t) * (size_t)m);
    double *block = calloc((size_t)7 * m, sizeof(double));
    if (!node->moves || !block) { free(block); return -1; }
    node->prior = block;
    node->prior_raw = block + m;
    node->N = block + 2 * m;
    node->W = block + 3 * m;
    node->S = block + 4 * m;
    node->N1 = block + 5 * m;
    node->Q = block + 6 * m;
    int j = 0;
    for (int i = 0; i <= n; i++)
        if (node->legal[i]) { node->moves[j] = (int16_t)i; node->prior[j] = policy[i]; j++; }
    double total = pairwise_sum(node->prior, m);
    for (int i = 0; i < m; i++) {
        node->prior[i] = total > 0 ? node->prior[i] / total : 1.0 / m;
        node->prior_raw[i] = node->prior[i];
        node->N1[i] = 1.0;
        node->Q[i] = value;
    }
    node->nchild = m;
    node->net_value = value;
    node->fpu = value;
    node->fpu_valid = 1;
    free(node->legal);
    node->legal = NULL;
    return 0;
}

static void undo_path(Engine *e, Node *leaf) {
    double vl = e->virtual_loss;
    for (Node *a = leaf; a->parent != NULL; a = a->parent) change(a->parent, a->index, -vl, vl);
}

/* ------------------------------------------------------------------ the API */

/* A new engine for `size`, the search's settings and the Zobrist keys of
 * position.zobrist_table (black's, white's: n each); NULL for a size out of 2..19, a
 * batch under 1 or no memory. It has no root until gs_set_root. */
Engine *gs_new(int size, double komi, int max_moves, double c_puct, double fpu_reduction, int batch_size,
               double virtual_loss, const uint64_t *black, const uint64_t *white) {
    if (size < 2 || size > 19 || batch_size < 1) return NULL;
    Engine *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->size = size;
    e->n = size * size;
    e->komi = komi;
    e->max_moves = max_moves;
    e->c_puct = c_puct;
    e->fpu_reduction = fpu_reduction;
    e->batch_size = batch_size;
    e->virtual_loss = virtual_loss;
    e->superko = 1;
    for (int p = 0; p < e->n; p++) {
        int r = p / size, c = p % size, k = 0;
        if (r > 0) e->nbr[p][k++] = p - size;
        if (r < size - 1) e->nbr[p][k++] = p + size;
        if (c > 0) e->nbr[p][k++] = p - 1;
        if (c < size - 1) e->nbr[p][k++] = p + 1;
        e->nbr_count[p] = k;
    }
    memcpy(e->zob[0], black, sizeof(uint64_t) * (size_t)e->n);
    memcpy(e->zob[1], white, sizeof(uint64_t) * (size_t)e->n);
    e->batch[0] = calloc((size_t)batch_size, sizeof(Leaf));
    e->batch[1] = calloc((size_t)batch_size, sizeof(Leaf));
    if (!e->batch[0] || !e->batch[1]) { free(e->batch[0]); free(e->batch[1]); free(e); return NULL; }
    return e;
}

void gs_free(Engine *e) {
    if (!e) return;
    node_free(e->root);
    free(e->seen_keys);
    free(e->seen_used);
    free(e->batch[0]);
    free(e->batch[1]);
    free(e);
}

static int same_position(const Pos *a, const Pos *b, int n) {
    return a->hash == b->hash && a->to_play == b->to_play && a->ko == b->ko && a->passes == b->passes &&
           a->move_count == b->move_count && memcmp(a->stones, b->stones, (size_t)n) == 0;
}

/* mcts.Search._find: breadth first from the root, up to `depth` moves down, through
 * positions with fewer moves than `p`; the first node whose position is `p` (stones,
 * side to move, ko point, passes, move count), or NULL. -1 in *oom when out of memory. */
static Node *find_position(Engine *e, const Pos *p, int depth, int *oom) {
    size_t cap = 256, head = 0, tail = 0;
    Node **queue = malloc(cap * sizeof *queue);
    int *level = malloc(cap * sizeof *level);
    Node *found = NULL;
    *oom = 0;
    if (!queue || !level) { free(queue); free(level); *oom = 1; return NULL; }
    queue[tail] = e->root;
    level[tail++] = 0;
    while (head < tail) {
        Node *node = queue[head];
        int d = level[head++];
        if (same_position(&node->pos, p, e->n)) { found = node; break; }
        if (d >= depth || node->pos.move_count >= p->move_count || !node->children) continue;
        for (int i = 0; i < node->nchild; i++) {
            if (!node->children[i]) continue;
            if (tail == cap) {
                cap *= 2;
                Node **q2 = realloc(queue, cap * sizeof *queue);
                if (q2) queue = q2;
                int *l2 = realloc(level, cap * sizeof *level);
                if (l2) level = l2;
                if (!q2 || !l2) { free(queue); free(level); *oom = 1; return NULL; }
            }
            queue[tail] = node->children[i];
            level[tail++] = d + 1;
        }
    }
    free(queue);
    free(level);
    return found;
}

/* Make the root the position given: its stones [n], side to move, ko point (-1: none),
 * last move (-1: none; n: a pass), passes, move count, the ko rule (superko 1:
 * positional, 0: simple ko), the positions seen in the game (Zobrist keys of the
 * stones, `nseen` of them, the position's own included) and the boards before it
 * (`nhist` rows of n, most recent first; only the first HISTORY are kept). The subtree
 * of the same position up to 3 moves below the old root is kept when it is not
 * terminal (mcts.set_position). Returns 1 when a subtree was kept, 0 when the tree
 * starts afresh, -1 when out of memory. */
int gs_set_root(Engine *e, const int8_t *stones, int to_play, int ko, int last_move, int passes, int move_count,
                int superko, const uint64_t *seen, long nseen, const int8_t *history, int nhist) {
    Pos p;
    memset(&p, 0, sizeof p);
    memcpy(p.stones, stones, (size_t)e->n);
    p.to_play = (int8_t)to_play;
    p.ko = (int16_t)ko;
    p.last_move = (int16_t)last_move;
    p.passes = passes;
    p.move_count = move_count;
    for (int i = 0; i < e->n; i++)
        if (stones[i]) p.hash ^= zkey(e, stones[i], i);
    Node *found = NULL;
    if (e->root) {
        int oom;
        found = find_position(e, &p, 3, &oom);
        if (oom) return -1;
        if (found && (found->terminal || found->pending)) found = NULL;
    }
    if (found) {
        if (found != e->root) {
            found->parent->children[found->index] = NULL;
            found->parent = NULL;
            found->index = -1;
            node_free(e->root);
            e->root = found;
        }
    } else {
        node_free(e->root);
        e->root = node_new(&p, NULL, -1);
        if (!e->root) return -1;
    }
    e->game = p;
    e->superko = superko;
    e->history_len = nhist < HISTORY ? nhist : HISTORY;
    for (int h = 0; h < e->history_len; h++) memcpy(e->history[h], history + (size_t)h * e->n, (size_t)e->n);
    if (e->seen_used) memset(e->seen_used, 0, e->seen_cap);
    e->seen_count = 0;
    for (long i = 0; i < nseen; i++)
        if (seen_add(e, seen[i]) < 0) return -1;
    return found ? 1 : 0;
}

/* Forget the tree: no root until the next gs_set_root (the root's accessors below
 * must not be called before). */
/* Forced playouts at the root from now on: k > 0 (KataGo's 2), or 0 for none. */
void gs_set_forced(Engine *e, double k) {
    e->forced = k;
}

/* Score utility in selection from now on: factor = lambda * 2/pi (0: off), scale in points (> 0). */
void gs_set_utility(Engine *e, double factor, double scale) {
    e->utility = factor;
    e->utility_scale = scale;
}

void gs_clear(Engine *e) {
    node_free(e->root);
    e->root = NULL;
}

/* Descend up to `budget` times under virtual loss (mcts._collect) into batch `slot`
 * (0 or 1; the other may be under evaluation, as with mcts's pipeline): a terminal
 * leaf is backed up at once; a leaf already pending (in either batch) ends it (its
 * path's virtual loss undone); a new leaf's planes go to planes[k] ([PLANES][n]
 * floats each). An unexpanded root is the whole batch. Returns the leaves to
 * evaluate, -1 when out of memory. */
int gs_collect(Engine *e, int slot, int budget, float *planes) {
    int n = e->n, k = 0;
    Leaf *batch = e->batch[slot];
    e->batch_len[slot] = 0;
    if (budget > e->batch_size) budget = e->batch_size;
    for (int t = 0; t < budget; t++) {
        Node *node = e->root;
        while (!node->terminal && node->nchild >= 0) {
            int i = select_child(e, node, node == e->root ? e->forced : 0.0);
            change(node, i, e->virtual_loss, -e->virtual_loss);
            Node *child = node->children ? node->children[i] : NULL;
            if (!child) child = make_child(e, node, i);
            if (!child) return -1;
            node = child;
        }
        if (node->terminal) {
            backup(e, node, node->term_value, node->term_score);
            continue;
        }
        if (node->pending) {
            undo_path(e, node);
            break;
        }
        node->legal = malloc((size_t)n + 1);
        if (!node->legal) return -1;
        node->pending = 1;
        write_planes(e, node, planes + (size_t)k * PLANES * n, node->legal);
        batch[k].leaf = node;
        k++;
        if (node == e->root) break;
    }
    e->batch_len[slot] = k;
    return k;
}

/* The legal moves of the leaves of batch `slot`, rows of n + 1 (for the caller's
 * masked softmax). */
void gs_batch_legal(const Engine *e, int slot, int8_t *legal) {
    for (int j = 0; j < e->batch_len[slot]; j++)
        memcpy(legal + (size_t)j * (e->n + 1), e->batch[slot][j].leaf->legal, (size_t)e->n + 1);
}

/* Expand the leaves of batch `slot` with their policies (rows of n + 1, the masked
 * softmax, float64), values, score leads (NULL: none) and ownership (rows of n,
 * NULL: none, not kept), then back them up in order (mcts._finish). 0, or -1 when
 * out of memory. */
int gs_finish(Engine *e, int slot, const double *policy, const float *values, const float *scores,
              const float *own) {
    int n = e->n, count = e->batch_len[slot];
    Leaf *batch = e->batch[slot];
    for (int j = 0; j < count; j++) {
        Node *leaf = batch[j].leaf;
        if (expand(e, leaf, policy + (size_t)j * (n + 1), (double)values[j]) < 0) return -1;
        leaf->net_score = scores ? (double)scores[j] : 0.0;
        if (own) {
            leaf->own = malloc(sizeof(float) * (size_t)n);
            if (!leaf->own) return -1;
            memcpy(leaf->own, own + (size_t)j * n, sizeof(float) * (size_t)n);
        }
    }
    for (int j = 0; j < count; j++) {
        Node *leaf = batch[j].leaf;
        leaf->pending = 0;
        backup(e, leaf, (double)values[j], scores ? (double)scores[j] : 0.0);
    }
    e->batch_len[slot] = 0;
    return 0;
}

/* The root: its visits, value sum, and number of children (-1: not expanded). */
long gs_root_visits(const Engine *e) { return e->root->visits; }
double gs_root_value_sum(const Engine *e) { return e->root->value_sum; }
double gs_root_net_value(const Engine *e) { return e->root->net_value; }
int gs_root_children(const Engine *e) { return e->root->nchild; }

/* The root's children: moves, N, W, S, prior (as selection uses it), prior_raw. */
void gs_root_stats(const Engine *e, int32_t *moves, double *N, double *W, double *S, double *prior,
                   double *prior_raw) {
    const Node *r = e->root;
    for (int i = 0; i < r->nchild; i++) {
        moves[i] = r->moves[i];
        N[i] = r->N[i];
        W[i] = r->W[i];
        S[i] = r->S[i];
        prior[i] = r->prior[i];
        prior_raw[i] = r->prior_raw[i];
    }
}

/* Replace the prior selection uses at the root (the Dirichlet noise, mixed by the
 * caller); prior_raw stays (search_node.set_prior). */
void gs_set_root_prior(Engine *e, const double *prior) {
    Node *r = e->root;
    for (int i = 0; i < r->nchild; i++) r->prior[i] = prior[i];
    r->fpu_valid = 0;
}

/* The game position's planes and legal moves (for tests: features.encode_batch). */
void gs_root_planes(Engine *e, float *planes, int8_t *legal) { write_planes(e, e->root, planes, legal); }

/* The game position's stones [n] and side to move; its ko point (-1: none). */
int gs_game_state(const Engine *e, int8_t *stones) {
    memcpy(stones, e->game.stones, (size_t)e->n);
    return e->game.to_play;
}
int gs_game_ko(const Engine *e) { return e->game.ko; }

/* The root's own figures: visits, value_sum, square_sum, score_sum, net_value,
 * net_score (out[6]). */
void gs_root_scalars(const Engine *e, double *out) {
    const Node *r = e->root;
    out[0] = (double)r->visits;
    out[1] = r->value_sum;
    out[2] = r->square_sum;
    out[3] = r->score_sum;
    out[4] = r->net_value;
    out[5] = r->net_score;
}

/* Per root child, the child's own real visits, value sum and squared value sum (for
 * the child's side to move; 0 where the child was never made): gobuddy.ai.lcb. */
void gs_root_moments(const Engine *e, double *visits, double *value_sum, double *square_sum) {
    const Node *r = e->root;
    for (int i = 0; i < r->nchild; i++) {
        const Node *c = r->children ? r->children[i] : NULL;
        visits[i] = c ? (double)c->visits : 0.0;
        value_sum[i] = c ? c->value_sum : 0.0;
        square_sum[i] = c ? c->square_sum : 0.0;
    }
}

/* The root's ownership from the network (n floats) into out: 1, or 0 when none. */
int gs_root_ownership(const Engine *e, float *out) {
    if (!e->root->own) return 0;
    memcpy(out, e->root->own, sizeof(float) * (size_t)e->n);
    return 1;
}

/* The principal variation from root child i (mcts.Search.pv): its move, then the most
 * visited reply (the first on ties) while one is visited, up to max_len moves. */
int gs_pv(const Engine *e, int i, int max_len, int32_t *out) {
    const Node *r = e->root;
    int len = 0;
    out[len++] = r->moves[i];
    const Node *child = r->children ? r->children[i] : NULL;
    while (child && child->nchild >= 0 && len < max_len && !child->terminal) {
        int best = 0;
        for (int j = 1; j < child->nchild; j++)
            if (child->N[j] > child->N[best]) best = j;
        if (child->N[best] < 1) break;
        out[len++] = child->moves[best];
        child = child->children ? child->children[best] : NULL;
    }
    return len;
}

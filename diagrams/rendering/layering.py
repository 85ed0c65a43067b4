"""Cycle breaking and layer assignment: a layered DAG from a directed graph, by depth-first
back edges (greedy order on tangled graphs) and longest-path or network-simplex layers."""

import heapq
from collections import deque

GREEDY_FALLBACK = 3.0  # use the greedy order when depth-first needs this many times the dummies


def depth_first_order(n: int, succ: list[list[int]], roots: list[int] | None = None) -> list[int]:
    """An order in which only a depth-first search's back edges point backwards: a small
    feedback arc set that, unlike the greedy order, keeps chains together (fewer crossings)."""
    state = [0] * n  # 0 new, 1 on the stack, 2 done
    back: set[tuple[int, int]] = set()
    children = [sorted(s) for s in succ]
    for root in roots if roots is not None else range(n):
        if state[root]:
            continue
        state[root] = 1
        stack = [(root, 0)]
        while stack:
            v, i = stack[-1]
            if i == len(children[v]):
                state[v] = 2
                stack.pop()
                continue
            stack[-1] = (v, i + 1)
            w = children[v][i]
            if state[w] == 1:
                back.add((v, w))
            elif state[w] == 0:
                state[w] = 1
                stack.append((w, 0))
    indeg = [0] * n
    forward = [[w for w in children[v] if (v, w) not in back] for v in range(n)]
    for v in range(n):
        for w in forward[v]:
            indeg[w] += 1
    queue = deque(v for v in range(n) if indeg[v] == 0)
    order = []
    while queue:
        v = queue.popleft()
        order.append(v)
        for w in forward[v]:
            indeg[w] -= 1
            if indeg[w] == 0:
                queue.append(w)
    return order


def greedy_order(n: int, succ: list[list[int]], pred: list[list[int]]) -> list[int]:
    """Eades-Lin-Smyth order (sinks right, sources left, else largest out- minus in-degree
    left); its backward edges form a small feedback arc set."""
    outdeg = [len(s) for s in succ]
    indeg = [len(p) for p in pred]
    removed = [False] * n
    left: list[int] = []
    right: list[int] = []
    sinks = deque(v for v in range(n) if outdeg[v] == 0)
    sources = deque(v for v in range(n) if indeg[v] == 0 and outdeg[v] > 0)
    heap = [(indeg[v] - outdeg[v], v) for v in range(n)]
    heapq.heapify(heap)
    remaining = n

    def remove(v: int) -> None:
        nonlocal remaining
        removed[v] = True
        remaining -= 1
        for u in pred[v]:
            if not removed[u]:
                outdeg[u] -= 1
                if outdeg[u] == 0:
                    sinks.append(u)
                else:
                    heapq.heappush(heap, (indeg[u] - outdeg[u], u))
        for w in succ[v]:
            if not removed[w]:
                indeg[w] -= 1
                if indeg[w] == 0:
                    sources.append(w)
                else:
                    heapq.heappush(heap, (indeg[w] - outdeg[w], w))

    while remaining:
        while sinks:
            v = sinks.popleft()
            if not removed[v]:
                right.append(v)
                remove(v)
        while sources:
            v = sources.popleft()
            if not removed[v]:
                left.append(v)
                remove(v)
        while heap and remaining:
            key, v = heapq.heappop(heap)
            if not removed[v] and key == indeg[v] - outdeg[v]:
                left.append(v)
                remove(v)
                break
    return left + right[::-1]


def assign_layers(n: int, dsucc: list[list[int]], dpred: list[list[int]]) -> list[int]:
    """Longest-path layers, then each node slides within its slack towards the side with
    more edges (fewer, shorter long edges); isolated nodes sit in layer 0."""
    indeg = [len(p) for p in dpred]
    queue = deque(v for v in range(n) if indeg[v] == 0)
    topo = []
    while queue:
        v = queue.popleft()
        topo.append(v)
        for w in dsucc[v]:
            indeg[w] -= 1
            if indeg[w] == 0:
                queue.append(w)
    layer = [0] * n
    for v in topo:
        for w in dsucc[v]:
            if layer[w] < layer[v] + 1:
                layer[w] = layer[v] + 1
    at = layer.__getitem__
    # nodes that would slide: towards their successors, or towards their predecessors
    forward = [len(dsucc[v]) > len(dpred[v]) for v in range(n)]
    sliding = [v for v in topo if len(dsucc[v]) != len(dpred[v])]
    for sweep in range(8):
        changed = False
        for v in reversed(sliding) if sweep % 2 == 0 else sliding:
            if forward[v]:
                target = min(map(at, dsucc[v])) - 1
            else:
                target = max(map(at, dpred[v])) + 1
            if target != layer[v]:
                layer[v] = target
                changed = True
        if not changed:
            break
    low = min(layer) if layer else 0
    return [value - low for value in layer]


def layered_dag(
    n: int,
    succ: list[list[int]],
    pred: list[list[int]],
    edges: list[tuple[int, int]],
    roots: list[int] | None = None,
    least_dummies: bool = False,
) -> tuple[list[tuple[int, int, bool]], list[int]]:
    """Each edge as (a, b, flipped) with a in an earlier layer than b, and every node's
    layer. With `least_dummies`, the layers are then optimised by network simplex."""

    def build(order: list[int]):
        rank = [0] * n
        for i, v in enumerate(order):
            rank[v] = i
        directed = [(s, t, False) if rank[s] < rank[t] else (t, s, True) for s, t in edges]
        dsucc: list[list[int]] = [[] for _ in range(n)]
        dpred: list[list[int]] = [[] for _ in range(n)]
        for a, b, _ in directed:
            dsucc[a].append(b)
            dpred[b].append(a)
        layer = assign_layers(n, dsucc, dpred)
        dummies = sum(layer[b] - layer[a] - 1 for a, b, _ in directed)
        return directed, layer, dummies, dsucc, dpred

    depth_first = build(depth_first_order(n, succ, roots))
    greedy = build(greedy_order(n, succ, pred))
    # depth-first gives fewer crossings, but on tangled graphs its layering can explode
    chosen = greedy if depth_first[2] > GREEDY_FALLBACK * max(greedy[2], 1) else depth_first
    directed, layer, _, dsucc, dpred = chosen
    if least_dummies:
        layer = network_simplex_layers(n, dsucc, dpred, layer)
    return directed, layer


def network_simplex_layers(
    n: int,
    dsucc: list[list[int]],
    dpred: list[list[int]],
    layer: list[int],
    max_iterations: int | None = None,
) -> list[int]:
    """Layers with the least total edge length, each edge at least one layer long: Gansner et
    al.'s network simplex (as dot ranks), from a feasible `layer` of a weakly connected DAG."""
    rank = list(layer)
    tails: list[int] = []
    heads: list[int] = []
    out_edges: list[list[int]] = [[] for _ in range(n)]
    in_edges: list[list[int]] = [[] for _ in range(n)]
    for a in range(n):
        for b in dsucc[a]:
            out_edges[a].append(len(tails))
            in_edges[b].append(len(tails))
            tails.append(a)
            heads.append(b)
    if n < 2 or not tails:
        return rank
    in_tree = [False] * len(tails)
    tree_adj: list[list[int]] = [[] for _ in range(n)]

    # --- a feasible tree: tight subtrees, merged smallest first -------------------------------
    owner = list(range(n))  # union-find over subtrees
    members: dict[int, list[int]] = {}

    def find(x: int) -> int:
        while owner[x] != x:
            owner[x] = owner[owner[x]]
            x = owner[x]
        return x

    def join(e: int) -> None:
        in_tree[e] = True
        tree_adj[tails[e]].append(e)
        tree_adj[heads[e]].append(e)
        a, b = find(tails[e]), find(heads[e])
        if len(members[a]) < len(members[b]):
            a, b = b, a
        owner[b] = a
        members[a].extend(members.pop(b))

    for v in range(n):
        members[v] = [v]
    for e in range(len(tails)):  # tight edges between different subtrees
        if rank[heads[e]] - rank[tails[e]] == 1 and find(tails[e]) != find(heads[e]):
            join(e)
    heap = [(len(nodes), root) for root, nodes in members.items()]
    heapq.heapify(heap)
    while len(members) > 1:
        size, root = heapq.heappop(heap)
        if root not in members or len(members[root]) != size:
            continue  # merged since
        best, best_slack = -1, 0
        for v in members[root]:
            for e in out_edges[v]:
                if find(heads[e]) != root:
                    slack = rank[heads[e]] - rank[v] - 1
                    if best < 0 or slack < best_slack:
                        best, best_slack = e, slack
            for e in in_edges[v]:
                if find(tails[e]) != root:
                    slack = rank[v] - rank[tails[e]] - 1
                    if best < 0 or slack < best_slack:
                        best, best_slack = e, slack
        if best < 0:
            break  # not connected: cannot happen for one component
        shift = best_slack if find(tails[best]) == root else -best_slack
        if shift:
            for v in members[root]:
                rank[v] += shift
        join(best)
        merged = find(root)
        heapq.heappush(heap, (len(members[merged]), merged))

    # --- postorder numbering and cut values ------------------------------------------------
    parent_edge = [-1] * n
    low = [0] * n
    lim = [0] * n
    by_lim = [0] * n

    def number(top: int, edge: int, start: int) -> None:
        """Postorder numbers of the subtree at `top` (reached by tree edge `edge`), from
        `start`; also each node's parent edge."""
        parent_edge[top] = edge
        stack = [(top, 0)]
        low[top] = start
        counter = start
        while stack:
            v, i = stack[-1]
            adjacent = tree_adj[v]
            if i < len(adjacent):
                stack[-1] = (v, i + 1)
                e = adjacent[i]
                if e == parent_edge[v]:
                    continue
                w = heads[e] if tails[e] == v else tails[e]
                parent_edge[w] = e
                low[w] = counter
                stack.append((w, 0))
            else:
                stack.pop()
                lim[v] = counter
                by_lim[counter] = v
                counter += 1

    number(0, -1, 0)
    cut = [0] * len(tails)
    for index in range(n - 1):  # postorder: children before parents
        v = by_lim[index]
        f = parent_edge[v]
        # v is the side of f already summed up; dot's x_cutval
        direction = 1 if tails[f] == v else -1
        total = 0
        lo, hi = low[v], lim[v]
        for edges, v_is_tail in ((out_edges[v], True), (in_edges[v], False)):
            for e in edges:
                other = heads[e] if v_is_tail else tails[e]
                outside = not (lo <= lim[other] <= hi)
                if outside:
                    value = 1
                else:
                    value = (cut[e] if in_tree[e] else 0) - 1
                if direction > 0:
                    d = -1 if v_is_tail else 1
                else:
                    d = 1 if v_is_tail else -1
                if outside:
                    d = -d
                total += value if d > 0 else -value
        cut[f] = total

    # --- pivots ----------------------------------------------------------------------------
    tree_edges = [parent_edge[by_lim[i]] for i in range(n - 1)]
    where = {e: i for i, e in enumerate(tree_edges)}
    cursor = 0
    search_size = 30
    limit = max_iterations if max_iterations is not None else 10 * n + 100
    for _ in range(limit):
        # leave: a tree edge with a negative cut value (the most negative of the next few)
        leave, found = -1, 0
        count = len(tree_edges)
        for step in range(count):
            e = tree_edges[(cursor + step) % count]
            if cut[e] < 0:
                if leave < 0 or cut[e] < cut[leave]:
                    leave = e
                found += 1
                if found >= search_size:
                    cursor = (cursor + step) % count
                    break
        else:
            cursor = 0 if leave < 0 else cursor
        if leave < 0:
            break
        # enter: the least-slack edge from the head side to the tail side
        t, h = tails[leave], heads[leave]
        down = t if lim[t] < lim[h] else h
        lo, hi = low[down], lim[down]
        enter, enter_slack = -1, 0
        if down == t:  # the subtree is the tail side: edges into it
            for index in range(lo, hi + 1):
                for e in in_edges[by_lim[index]]:
                    if not in_tree[e] and not (lo <= lim[tails[e]] <= hi):
                        slack = rank[heads[e]] - rank[tails[e]] - 1
                        if enter < 0 or slack < enter_slack:
                            enter, enter_slack = e, slack
                if enter >= 0 and enter_slack == 0:
                    break
        else:  # the subtree is the head side: edges out of it
            for index in range(lo, hi + 1):
                for e in out_edges[by_lim[index]]:
                    if not in_tree[e] and not (lo <= lim[heads[e]] <= hi):
                        slack = rank[heads[e]] - rank[tails[e]] - 1
                        if enter < 0 or slack < enter_slack:
                            enter, enter_slack = e, slack
                if enter >= 0 and enter_slack == 0:
                    break
        if enter < 0:
            break
        # make the entering edge tight by moving the subtree
        if enter_slack:
            shift = -enter_slack if down == t else enter_slack
            for index in range(lo, hi + 1):
                rank[by_lim[index]] += shift
        # cut values along the tree paths from the entering edge's ends to their meeting point
        value = cut[leave]
        meet = -1
        a, b = tails[enter], heads[enter]
        for start, other, sign in ((a, b, 1), (b, a, 0)):
            v = start
            while not (low[v] <= lim[other] <= lim[v]):
                e = parent_edge[v]
                d = sign if v == tails[e] else 1 - sign
                cut[e] += value if d else -value
                v = tails[e] if lim[tails[e]] > lim[heads[e]] else heads[e]
            meet = v
        cut[enter] = -value
        cut[leave] = 0
        # exchange, renumber the subtree where the paths meet
        in_tree[leave] = False
        in_tree[enter] = True
        tree_adj[t].remove(leave)
        tree_adj[h].remove(leave)
        tree_adj[tails[enter]].append(enter)
        tree_adj[heads[enter]].append(enter)
        slot = where.pop(leave)
        tree_edges[slot] = enter
        where[enter] = slot
        number(meet, parent_edge[meet], low[meet])
    lowest = min(rank)
    return [value - lowest for value in rank]

"""The territory-graph actor-critic as a plain torch module (no SB3), and its policy files.

:class:`GraphNet` reads the graph observation (:mod:`risk_env.envs.graph`) and is plain
torch (no graph library):

1. a shared per-territory encoder: ``h_t = MLP(nodes[t])`` (``F -> d``), and a
   global encoder ``z = MLP(globals)`` (``G -> d``);
2. ``rounds`` rounds of mean-over-neighbours message passing, each
   ``h <- LayerNorm(h + ReLU(W [h_t, mean_{u in N(t)} h_u, z]))`` (``N(t)`` from the
   observation's edge index);
3. a pooled summary ``p = [mean_t h_t, max_t h_t, z]`` (``3d``);
4. territory logits (action ids ``0 .. T-1``, the codec's territory block) from
   each node's embedding and the summary: ``MLP([h_t, p]) -> 1``; the other
   action blocks (amounts, dice, blitz, trades, end: ``N - T`` ids, the same for
   every map) from the summary: ``MLP(p) -> N - T``;
5. the value from the summary: ``MLP(p) -> 1``.

Every weight is shared across territories, so one network serves every map and,
because owners are relative to the observer in fixed slots, every player count from
2 to 6. Two users wrap it: :class:`risk_env.train.graph_policy.GraphPolicy` (for
sb3-contrib's ``MaskablePPO``) and the on-device trainer :mod:`risk_env.train.device_ppo`.

Policy files (``.pt``): :func:`save_policy` writes the network's sizes, its weights
and a metadata dict with ``torch.save``; :func:`load_policy` reads them back (with
``weights_only=True``: no code runs). :class:`risk_env.agents.policy.GraphNetAgent`
plays such a file, and ``load_agent("path/model.pt")`` builds one.

>>> import torch
>>> net = GraphNet(node_dim=20, global_dim=73, n_other=28, hidden=16, rounds=2)
>>> edges = torch.tensor([[0, 1, 1, 2], [1, 0, 2, 1]])  # a path of 3 territories
>>> logits, value = net(torch.rand(4, 3, 20), edges[None], torch.rand(4, 73))
>>> logits.shape, value.shape
(torch.Size([4, 31]), torch.Size([4, 1]))
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import torch as th
from torch import nn

from ..errors import RiskError, cause_line

__all__ = [
    "POLICY_FORMAT",
    "GraphNet",
    "average_policies",
    "graph_net_from_sb3",
    "load_policy",
    "check_plays",
    "masked_logits",
    "save_policy",
    "trained_rules_note",
    "trained_turn_feature",
]

POLICY_FORMAT = "risk_env.graph_net"
"""The ``"format"`` entry of a policy file written by :func:`save_policy`."""
_POLICY_VERSION = 1


class GraphNet(nn.Module):
    """The territory-graph actor-critic (module docstring).

    Args:
        node_dim: ``F`` (20 for :mod:`risk_env.envs.graph` under ``classic`` and ``fast``; the rule switches that add
            blocks add features); global_dim: ``G`` (73 there);
        n_other: the non-territory action ids ``N - T`` (28 under the classic rules);
        hidden: ``d``; rounds: message-passing rounds.

    The linear maps of concatenations are split into a per-territory part and a
    per-position part (the same maths, computed once per position where it can be),
    and when every observation of a batch has the same edge index (one map) the
    neighbour mean is one matrix product with the row-normalized adjacency
    (:meth:`mean_adjacency`, :meth:`forward_dense`).
    """

    def __init__(self, node_dim: int, global_dim: int, n_other: int, hidden: int = 64, rounds: int = 3) -> None:
        super().__init__()
        for name, v, lo in (("node_dim", node_dim, 1), ("global_dim", global_dim, 1), ("n_other", n_other, 1)):
            if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                raise RiskError(f"GraphNet: {name} must be an integer >= {lo}, got {v!r}")
        if isinstance(hidden, bool) or not isinstance(hidden, int) or hidden < 1:
            raise RiskError(f"GraphNet: hidden must be an integer >= 1, got {hidden!r}")
        if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 0:
            raise RiskError(f"GraphNet: rounds must be an integer >= 0, got {rounds!r}")
        self.sizes = {"node_dim": node_dim, "global_dim": global_dim, "n_other": n_other, "hidden": hidden, "rounds": rounds}
        d = hidden
        self.node_in = nn.Sequential(nn.Linear(node_dim, d), nn.ReLU(inplace=True), nn.Linear(d, d), nn.ReLU(inplace=True))
        self.glob_in = nn.Sequential(nn.Linear(global_dim, d), nn.ReLU())
        # round k: ReLU(W_self h + W_nbr mean_nbr(h) + W_glob z + b)
        self.mp_self = nn.ModuleList([nn.Linear(d, d) for _ in range(rounds)])
        self.mp_nbr = nn.ModuleList([nn.Linear(d, d, bias=False) for _ in range(rounds)])
        self.mp_glob = nn.ModuleList([nn.Linear(d, d, bias=False) for _ in range(rounds)])
        self.norms = nn.ModuleList([nn.LayerNorm(d) for _ in range(rounds)])
        # territory logit: MLP([h_t, pooled]) with the first layer split
        self.terr_node = nn.Linear(d, d)
        self.terr_pool = nn.Linear(3 * d, d, bias=False)
        self.terr_out = nn.Linear(d, 1)
        self.other_head = nn.Sequential(nn.Linear(3 * d, d), nn.ReLU(), nn.Linear(d, n_other))
        self.value_head = nn.Sequential(nn.Linear(3 * d, d), nn.ReLU(), nn.Linear(d, 1))
        for last, gain in ((self.terr_out, 0.01), (self.other_head[-1], 0.01), (self.value_head[-1], 1.0)):
            if isinstance(last, nn.Linear):
                nn.init.orthogonal_(last.weight, gain=gain)
                nn.init.zeros_(last.bias)
        self._adj_key: tuple[int, bytes] | None = None
        self._adj: th.Tensor | None = None
        self.float()  # float32 as the observations are, whatever torch's default dtype (torch.set_default_dtype)

    @staticmethod
    def parameter_count(node_dim: int, global_dim: int, n_other: int, hidden: int, rounds: int) -> int:
        """The weights of a network of these sizes (the arguments of the constructor), without building it: a size
        too large to allocate can be refused before anything is written (:func:`risk_env.train.run.check_network_memory`).

        >>> GraphNet.parameter_count(20, 73, 28, 16, 2) == sum(p.numel() for p in GraphNet(20, 73, 28, 16, 2).parameters())
        True
        """
        d = hidden
        inputs = (node_dim + 1) * d + (d + 1) * d + (global_dim + 1) * d  # node_in (two layers), glob_in
        passing = rounds * (3 * d * d + 3 * d)  # W_self (+ bias), W_nbr, W_glob, LayerNorm
        heads = (d + 1) * d + 3 * d * d + (d + 1)  # territory logit: terr_node, terr_pool, terr_out
        heads += (3 * d + 1) * d + (d + 1) * n_other + (3 * d + 1) * d + (d + 1)  # other_head, value_head
        return inputs + passing + heads

    @staticmethod
    def activation_bytes(batch: int, T: int, node_dim: int, global_dim: int, n_other: int, hidden: int, rounds: int) -> int:
        """About the bytes (float32) that a forward pass over ``batch`` observations of ``T`` territories keeps for its
        backward pass (the minibatch's features, the embeddings of each round, the logits and their log-softmax): the
        update's memory besides the training state (:meth:`parameter_count`), for
        :func:`risk_env.train.run.check_network_memory`. Each round keeps about four ``(batch, T, hidden)`` tensors;
        the figure is 1.0-1.3 times what autograd keeps (checked by the tests against autograd's saved tensors).

        >>> GraphNet.activation_bytes(512, 42, 20, 73, 28, 32, 3) / 2**20  # (MiB) a minibatch of the device config
        44.830078125
        """
        per_obs = T * (hidden * (4 * rounds + 4) + node_dim) + global_dim + 4 * (T + n_other) + 8 * hidden
        return 4 * batch * per_obs

    @staticmethod
    def mean_adjacency(edges: th.Tensor, T: int, dtype: th.dtype = th.float32) -> th.Tensor:
        """The row-normalized adjacency ``A`` ``(T, T)`` of one edge index (int ``(2, E)``: row 0
        sources, row 1 targets): ``A @ h`` is the mean of each territory's neighbours (0 for none)."""
        e = edges.long()
        A = th.zeros(T, T, dtype=dtype, device=edges.device)
        A.index_put_((e[1], e[0]), th.ones(e.shape[1], dtype=dtype, device=edges.device), accumulate=True)
        return A / A.sum(dim=1, keepdim=True).clamp_min(1.0)

    def _neighbour_mean(self, edges: th.Tensor, T: int, dtype: th.dtype) -> Any:
        """A function ``h -> mean over neighbours of h`` for this batch's edge index ``(B, 2, E)``."""
        B = edges.shape[0]
        src, dst = edges[:, 0], edges[:, 1]
        if B == 1 or bool((edges == edges[:1]).all()):
            e0 = edges[0]
            key = (T, e0.cpu().numpy().tobytes())
            if self._adj is None or self._adj_key != key or self._adj.device != edges.device or self._adj.dtype != dtype:
                self._adj, self._adj_key = self.mean_adjacency(e0, T, dtype), key
            A = self._adj
            return lambda h: th.matmul(A, h)
        deg = th.zeros(B, T, dtype=dtype, device=edges.device).scatter_add_(1, dst, th.ones_like(dst, dtype=dtype))
        deg = deg.clamp_min(1.0).unsqueeze(-1)

        def mean(h: th.Tensor) -> th.Tensor:
            d = h.shape[-1]
            msg = th.gather(h, 1, src.unsqueeze(-1).expand(-1, -1, d))
            return th.zeros_like(h).scatter_add_(1, dst.unsqueeze(-1).expand(-1, -1, d), msg) / deg

        return mean

    def forward(self, nodes: th.Tensor, edges: th.Tensor, globals_: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        """``nodes`` float ``(B, T, F)``, ``edges`` integer ``(B, 2, E)`` (or ``(1, 2, E)`` for one
        map; float ids are rounded), ``globals_`` float ``(B, G)`` -> logits ``(B, T + n_other)``,
        value ``(B, 1)``."""
        T = nodes.shape[1]
        idx = edges.round().long() if edges.is_floating_point() else edges.long()
        return self._trunk(nodes, globals_, self._neighbour_mean(idx, T, nodes.dtype))

    def forward_dense(self, nodes: th.Tensor, globals_: th.Tensor, adjacency: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        """:meth:`forward` for a batch on one map given by its :meth:`mean_adjacency` ``(T, T)``
        (no check of the edge index, no host synchronisation)."""
        return self._trunk(nodes, globals_, lambda h: th.matmul(adjacency, h))

    def _trunk(self, nodes: th.Tensor, globals_: th.Tensor, nbr_mean: Any) -> tuple[th.Tensor, th.Tensor]:
        h = self.node_in(nodes)
        z = self.glob_in(globals_)
        B, T, d = h.shape
        for ws, wn, wg, norm in zip(self.mp_self, self.mp_nbr, self.mp_glob, self.norms, strict=True):
            # ws(h) + wn(mean): the second product accumulates into the first (one temporary fewer); the
            # ReLU runs in place on a fresh sum (autograd keeps its output): the same values, less memory
            w_self, w_nbr = cast(nn.Linear, ws), cast(nn.Linear, wn)
            pre = th.addmm(w_self.bias, h.reshape(B * T, d), w_self.weight.t())
            pre = th.addmm(pre, nbr_mean(h).reshape(B * T, d), w_nbr.weight.t())
            h = norm(h + th.relu_(pre.view(B, T, d) + wg(z).unsqueeze(1)))
        pooled = th.cat([h.mean(dim=1), h.amax(dim=1), z], dim=-1)
        terr = self.terr_out(th.relu_(self.terr_node(h) + self.terr_pool(pooled).unsqueeze(1))).squeeze(-1)
        other = self.other_head(pooled)
        return th.cat([terr, other], dim=-1), self.value_head(pooled)

    def check_fits(self, T: int, node_dim: int, global_dim: int, num_actions: int) -> None:
        """Check that observations of ``T`` territories with these feature and action counts are of
        rules this network can play. The territory block follows the map, but the node features, the
        global features and the non-territory action ids are fixed when the network is built.

        Raises:
            ConfigError: a size differs; the message names it and what changes it.
        """
        from ..errors import ConfigError

        F, G, n_other = self.sizes["node_dim"], self.sizes["global_dim"], self.sizes["n_other"]
        where = "train a policy under these rules (or play it under the rules it was trained for)"
        if num_actions - T != n_other:
            raise ConfigError(
                f"this graph policy scores {n_other} action ids besides the {T} territories; these rules have "
                f"{num_actions - T} (rule switches such as the dice rules or the card trade change that block): {where}"
            )
        if node_dim != F or global_dim != G:
            raise ConfigError(
                f"this graph policy reads {F} features per territory and {G} global features; these rules give {node_dim} "
                f"and {global_dim} (rule switches such as missions, capitals, the expert dice, the allied army or the "
                f"defender's choice of dice add features): {where}"
            )


def check_plays(net: GraphNet, game: Any, trained: Any = None) -> None:
    """Refuse a game (a :class:`~risk_env.rules.engine.Game`) whose graph observation or action ids ``net`` was not built
    for (:meth:`GraphNet.check_fits`), naming, where the policy file kept its training rules (``trained``), the switches
    behind the difference (:func:`trained_rules_note`). The one check of a graph network against a game's rules: the
    agents, the batched evaluation and the trainer's ``ppo.init`` call it.

    Raises:
        ConfigError: a size differs; the message names it, what changes it and the switches.
    """
    from ..envs.codec import ActionCodec
    from ..envs.graph import GraphObservationEncoder
    from ..errors import ConfigError

    enc = GraphObservationEncoder(game)
    try:
        net.check_fits(enc.T, enc.F, enc.G, ActionCodec(game).n)
    except ConfigError as e:
        sizes = (int(net.sizes["node_dim"]), int(net.sizes["global_dim"]))
        raise ConfigError(f"{e}{trained_rules_note(trained, game.config, sizes)}") from None


def trained_rules_note(trained: Any, rules: Any, net_sizes: tuple[int, int] | None = None) -> str:
    """The rule switches by which ``rules`` (a :class:`~risk_env.rules.config.RulesConfig`) differ from the rules a policy
    file says its network was trained under (``trained``: its ``meta["rules"]``, a dict) and which change what the
    network reads or scores, as the end of a refusal of :meth:`GraphNet.check_fits`:
    ``"; it was trained with reroll_with_card=False (these rules: True)"``.

    A switch is named where changing it alone changes the node features, the global features or the non-territory
    action ids, judged from either side: these rules with the switch at its training value, or the training rules with
    it at its value here (a Game is built for each; this runs only on a refusal). A switch that cannot be changed alone
    on either side (it needs another with it) is named where no switch is found on its own. The map, the player count,
    the starting armies and, between player counts above 2, the two-player rule are left out (the network plays any
    map and count; the two-player rule is named where one side plays 2-player games, whose allied army adds features).
    Where no switch is found, the training rules give these rules' sizes and the network (``net_sizes``: its ``F``
    and ``G``) reads others, the note says the network was built before the graph observation carried the blocks of
    its rule switches. ``""`` where the file keeps no rules, they no longer resolve, or nothing is found.
    """
    from ..envs.codec import ActionCodec
    from ..envs.graph import GraphObservationEncoder
    from ..errors import RiskError
    from ..rules.config import RulesConfig
    from ..rules.engine import Game

    if not isinstance(trained, dict) or not isinstance(rules, RulesConfig):
        return ""
    try:
        before = RulesConfig.from_dict(trained)
    except (RiskError, TypeError, ValueError):  # (rules of an older release that no longer resolve: nothing to name)
        return ""

    def sizes(cfg: RulesConfig) -> tuple[int, int, int] | None:
        try:
            game = Game(cfg)
        except RiskError:  # (a map that does not load here, a variant this map lacks)
            return None
        enc = GraphObservationEncoder(game)
        return enc.F, enc.G, ActionCodec(game).n - enc.T

    base_sizes = {"here": sizes(rules), "trained": sizes(before)}  # (each side's, built once)

    def changes(side: str, key: str, value: Any) -> bool | None:
        """Whether setting ``key`` alone to ``value`` on one side changes its sizes (None: it cannot be set alone)."""
        try:
            other = (rules if side == "here" else before).replace(**{key: value})
        except RiskError:
            return None
        a, b = base_sizes[side], sizes(other)
        return None if a is None or b is None else a != b

    skip = {"map", "num_players", "starting_armies"}
    if before.num_players != rules.num_players and 2 not in (before.num_players, rules.num_players):
        skip.add("two_player")  # (a rule of 2-player games; named where one side plays them: the allied army's features)
    differ = [k for k in before.differences(rules) if k not in skip]
    named, unsure = [], []
    for k in differ:
        judged = [changes("here", k, getattr(before, k)), changes("trained", k, getattr(rules, k))]
        if any(judged):
            named.append(k)
        elif None in judged and not any(j is False for j in judged):
            unsure.append(k)
    named = named or unsure
    if not named:
        here, then = base_sizes["here"], base_sizes["trained"]
        if here is not None and here == then and net_sizes is not None and net_sizes != here[:2]:
            # (the training rules give these sizes today, the network reads others: a network of an older layout)
            return (
                f"; its training rules give {here[0]} and {here[1]} features today: the network was built before the "
                "graph observation carried the blocks its rule switches add (risk_env 0.2.0); train it again"
            )
        return ""
    was = ", ".join(f"{k}={getattr(before, k)!r}" for k in named)
    now = ", ".join(f"{k}={getattr(rules, k)!r}" for k in named)
    return f"; it was trained with {was} (these rules: {now})"


def masked_logits(logits: th.Tensor, mask: th.Tensor) -> th.Tensor:
    """``logits`` with the ids that bool ``mask`` (same shape) forbids set to the most negative
    float: a softmax gives them probability 0 and an argmax never picks them (a row needs one legal id)."""
    return logits.masked_fill(~mask, th.finfo(logits.dtype).min)


# ---------------------------------------------------------------------------- policy files
def trained_turn_feature(meta: Mapping[str, Any]) -> bool:
    """Whether the network of a policy file's ``meta`` (:func:`load_policy`) was trained with ``turn / turn_limit``
    in its graph observation (``globals[71]``; the device trainer's ``env.turn_feature``, kept in the file's
    ``config``): the players of the network (:class:`~risk_env.agents.policy.GraphNetAgent`, the batched evaluation's
    policy) show it the turn as it was trained. False for a file without it (a network built elsewhere).

    >>> trained_turn_feature({"config": {"env": {"turn_feature": True}}}), trained_turn_feature({})
    (True, False)
    """
    config = meta.get("config")
    env = config.get("env") if isinstance(config, Mapping) else None
    return bool(env.get("turn_feature")) if isinstance(env, Mapping) else False


def save_policy(path: str | os.PathLike[str], net: GraphNet, **meta: Any) -> Path:
    """Write ``net`` (its sizes and weights, on the CPU) and ``meta`` (plain values: numbers,
    strings, lists, dicts, tensors) to ``path`` with ``torch.save``; returns the path.

    The trainer stores ``timesteps``, ``rules`` (the training rules as a dict) and ``config``.
    """
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "format": POLICY_FORMAT,
        "version": _POLICY_VERSION,
        "network": dict(net.sizes),
        "state_dict": {k: v.detach().cpu() for k, v in net.state_dict().items()},
        "meta": meta,
    }
    tmp = p.with_name(p.name + ".tmp")
    th.save(data, tmp)
    os.replace(tmp, p)
    return p


def _unreadable(p: Path, e: BaseException) -> str:
    """Why ``torch.load`` could not read ``p``, in one line (not torch's advice to load it without ``weights_only``)."""
    import zipfile

    if p.stat().st_size == 0:
        return "the file is empty"
    if not zipfile.is_zipfile(p):
        return "not a torch file: torch.save writes a zip archive"
    try:
        names = zipfile.ZipFile(p).namelist()
    except (zipfile.BadZipFile, OSError):
        names = []
    if not any(n.endswith("data.pkl") for n in names):
        if p.suffix.lower() == ".zip":
            return "a MaskablePPO checkpoint (.zip): load_agent and graph_net_from_sb3 read it; this takes policy files (.pt)"
        return "a zip archive but not a torch file: a MaskablePPO checkpoint? give it with its .zip suffix"
    return f"torch cannot read it: {cause_line(e)}"


def load_policy(path: str | os.PathLike[str], device: str | th.device = "cpu") -> tuple[GraphNet, dict[str, Any]]:
    """Read a policy file of :func:`save_policy`: the network (on ``device``, in eval mode) and its metadata.

    Raises:
        ConfigError: ``device`` is not a torch device, or one this torch cannot use here
            (:func:`risk_env.vector.engine.resolve_device`; checked before the file is read).
        RiskError: no such file, or a file that is not a policy file of this format: not readable, another
            format or version, a network that does not load, a weight that is NaN or infinite, or a ``meta``
            that is not a dict (the message names the file and the problem).
    """
    from ..vector.engine import resolve_device

    dev = resolve_device(device)
    p = Path(path)
    if p.is_dir():
        raise RiskError(f"{str(p)!r} is a folder: give a policy file (.pt) in it, such as model.pt")
    if not p.is_file():
        raise RiskError(f"no policy file at {str(p)!r}")
    try:
        data = th.load(p, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises several types for a foreign or damaged file
        raise RiskError(f"{str(p)!r} is not a readable policy file ({_unreadable(p, e)})") from None
    if not isinstance(data, dict) or data.get("format") != POLICY_FORMAT:
        raise RiskError(
            f"{str(p)!r} is not a risk_env graph policy file (no format {POLICY_FORMAT!r}); "
            "a MaskablePPO checkpoint is a .zip, which load_agent also takes"
        )
    if data.get("version") != _POLICY_VERSION:
        raise RiskError(f"{str(p)!r} is a policy file of version {data.get('version')!r}; this risk_env reads version 1")
    try:
        net = GraphNet(**data["network"])
        net.load_state_dict(data["state_dict"])
    except (KeyError, TypeError, RuntimeError, RiskError) as e:  # (RiskError: sizes GraphNet refuses)
        raise RiskError(f"{str(p)!r}: the network in the policy file does not load ({cause_line(e)})") from None
    for name, t in net.state_dict().items():
        if t.is_floating_point() and not bool(th.isfinite(t).all()):
            raise RiskError(f"{str(p)!r}: the network's weights {name!r} hold NaN or infinite values (a diverged run?)")
    meta = data.get("meta", {})
    if not isinstance(meta, dict):
        raise RiskError(f"{str(p)!r}: the policy file's meta must be a dict (as save_policy writes), got {type(meta).__name__}")
    net.to(dev).eval()
    return net, dict(meta)


def average_policies(paths: Sequence[str | os.PathLike[str]], device: str | th.device = "cpu") -> tuple[GraphNet, dict[str, Any]]:
    """The uniform average of the weights of the policy files ``paths`` (:func:`save_policy`'s; checkpoints of one
    run, typically), by torch's :class:`~torch.optim.swa_utils.AveragedModel` (stochastic weight averaging), and the
    last file's metadata. The device trainer's ``checkpoint.average_from`` writes a run's ``model_avg.pt`` with it.

    Returns:
        ``(net, meta)``: a :class:`GraphNet` of the files' sizes (on ``device``, in eval mode) and the last file's
        ``meta`` without its optimizer state, which was not the average's (the caller adds what it averaged).

    Raises:
        RiskError: one path instead of a list, anything else than a list of paths, no file, a file :func:`load_policy`
            refuses, or files whose networks
            differ in size (the message names the first such file and both sizes).
    """
    from torch.optim.swa_utils import AveragedModel

    if isinstance(paths, (str, bytes, os.PathLike)):  # (a str is a Sequence: of characters)
        raise RiskError(f"average_policies: give a list of policy files, got one path {str(paths)!r}")
    if not isinstance(paths, Sequence) or not all(isinstance(p, (str, os.PathLike)) for p in paths):
        raise RiskError(f"average_policies: give a list of policy file paths (str or Path), got {paths!r:.80}")
    files = [Path(p) for p in paths]
    if not files:
        raise RiskError("average_policies: give at least one policy file (.pt)")
    from ..vector.engine import resolve_device

    dev = resolve_device(device)
    first, meta = load_policy(files[0])
    averaged = AveragedModel(first)  # (its first update_parameters copies the weights, the next ones average them in)
    for f in files:
        net, meta = (first, meta) if f is files[0] else load_policy(f)
        if net.sizes != first.sizes:
            raise RiskError(
                f"average_policies: {str(f)!r} holds a network of sizes {net.sizes}, {str(files[0])!r} one of "
                f"{first.sizes}: only networks of one shape average (checkpoints of one run)"
            )
        averaged.update_parameters(net)
    out = GraphNet(**first.sizes)
    out.load_state_dict(averaged.module.state_dict())
    meta = {k: v for k, v in meta.items() if k != "optimizer"}  # (a checkpoint's optimizer: not the average's)
    return out.to(dev).eval(), meta


def graph_net_from_sb3(path: str | os.PathLike[str], device: str | th.device = "cpu") -> GraphNet:
    """The :class:`GraphNet` of a sb3-contrib ``MaskablePPO`` checkpoint (``.zip``) with
    :class:`~risk_env.train.graph_policy.GraphPolicy`, such as the shipped ``ppo-2p-0.1``: its weights
    are read from the archive's ``policy.pth`` (SB3 is not needed).

    Raises:
        ConfigError: ``device`` is not a torch device this torch can use here (as :func:`load_policy`).
        RiskError: no such file, or a checkpoint without a graph policy.
    """
    import io
    import zipfile

    from ..vector.engine import resolve_device

    dev = resolve_device(device)
    p = Path(path)
    if not p.is_file():
        raise RiskError(f"no MaskablePPO checkpoint at {str(p)!r}")
    try:
        with zipfile.ZipFile(p) as z:
            state = th.load(io.BytesIO(z.read("policy.pth")), map_location="cpu", weights_only=True)
    except (zipfile.BadZipFile, KeyError, RuntimeError) as e:
        raise RiskError(f"{str(p)!r} is not a MaskablePPO checkpoint ({type(e).__name__}: {e})") from None
    sd = {k[len("graph_net.") :]: v for k, v in state.items() if k.startswith("graph_net.")}
    if not sd:
        raise RiskError(f"{str(p)!r} holds no graph policy (ppo.policy: graph): its network is not a GraphNet")
    rounds = sum(1 for k in sd if k.startswith("mp_self.") and k.endswith(".weight"))
    net = GraphNet(
        node_dim=int(sd["node_in.0.weight"].shape[1]),
        global_dim=int(sd["glob_in.0.weight"].shape[1]),
        n_other=int(sd["other_head.2.weight"].shape[0]),
        hidden=int(sd["node_in.0.weight"].shape[0]),
        rounds=rounds,
    )
    net.load_state_dict(sd)
    return net.to(dev)

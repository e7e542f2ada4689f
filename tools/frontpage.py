"""The figure and tables of the front page (nbs/index.ipynb: Figure 1 labelled with the code, the paper path with each
notebook's running time, the notation) and of "Use the library" (nbs/use.ipynb: the results, Table 3 at Multi30k
scale, the published models); tools/make_readme.py turns the two pages into README.md. Each is built from the package
and the results files, so the pages cannot drift from them; a page calls one function per figure or table, so a reader
of the notebook sees prose and figures, and this file holds the code. tests/prose/index.py and tests/prose/use.py check
what the pages' prose says against the same sources."""
import inspect, json
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.patches import FancyBboxPatch, Circle
from IPython.display import Markdown

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / 'results'

def _json(name:str): return json.loads((RESULTS / name).read_text(encoding='utf-8'))

# ---- Figure 1, each box labelled with the module that implements it and the notebook that teaches it
COLORS = {'attn': '#fbd7a6', 'norm': '#f4f1a8', 'ffn': '#c6e3f5', 'emb': '#f6c9cf', 'out': '#d5d0ea', 'pos': '#ffffff'}

def box(ax, x, y, title, module, kind, w=3.5, h=0.62):
    "A Figure 1 box at (x, y): the paper's name on top, the module that implements it below."
    ax.add_patch(FancyBboxPatch((x - w/2, y - h/2), w, h, boxstyle='round,pad=0.02,rounding_size=0.08',
                                fc=COLORS[kind], ec='#333333', lw=0.8))
    ax.text(x, y + 0.12, title, ha='center', va='center', fontsize=8.5)
    ax.text(x, y - 0.15, module, ha='center', va='center', fontsize=7.5, family='monospace', color='#1f3f7a')

def arrow(ax, a, b, **kw): ax.annotate('', b, a, arrowprops=dict(arrowstyle='-|>', lw=0.8, color='#333333', shrinkA=0, shrinkB=0, **kw))

def plus(ax, x, y, r=0.17):
    ax.add_patch(Circle((x, y), r, fc='white', ec='#333333', lw=0.8))
    ax.text(x, y - 0.01, '+', ha='center', va='center', fontsize=10)

def figure1_map():
    fig, ax = plt.subplots(figsize=(9.6, 8.4), dpi=80)
    ax.set_xlim(0, 12.3); ax.set_ylim(-0.2, 10.6); ax.axis('off')
    E, D, W, H = 3.5, 8.8, 3.5, 0.62
    # ---- encoder (left)
    ax.text(E, 0.1, 'Inputs: src ids (B, S)', ha='center', fontsize=8.5)
    box(ax, E, 1.1, 'Input Embedding  (×√d_model)', 'Embeddings · 04', 'emb'); arrow(ax, (E, 0.35), (E, 1.1 - H/2))
    plus(ax, E, 2.0); arrow(ax, (E, 1.1 + H/2), (E, 2.0 - 0.17))
    ax.text(E - 2.1, 2.08, 'Positional\nEncoding', ha='center', va='center', fontsize=8)
    ax.text(E - 2.1, 1.62, 'SinusoidalPositional-\nEncoding · 05', ha='center', va='center', fontsize=6.8, family='monospace', color='#1f3f7a')
    arrow(ax, (E - 1.15, 2.0), (E - 0.17, 2.0))
    ax.text(E + 0.25, 2.35, 'dropout', fontsize=7, color='#555555')
    enc = [(3.3, 'Multi-Head Attention', 'MultiHeadAttention · 02', 'attn'), (4.15, 'Add & Norm', 'SublayerConnection · 06', 'norm'),
           (5.15, 'Feed Forward', 'FeedForward · 03', 'ffn'), (6.0, 'Add & Norm', 'SublayerConnection · 06', 'norm')]
    ax.add_patch(FancyBboxPatch((E - W/2 - 0.25, 2.75), W + 0.5, 3.65, boxstyle='round,pad=0.02,rounding_size=0.15', fc='#f2f2f2', ec='#666666', lw=0.8, zorder=0))
    ax.text(E - W/2 - 0.35, 4.65, 'N ×', ha='right', va='center', fontsize=10, weight='bold')
    ax.text(E - W/2 - 0.35, 4.2, 'EncoderLayer\n· 06', ha='right', va='center', fontsize=7.5, family='monospace', color='#1f3f7a')
    arrow(ax, (E, 2.0 + 0.17), (E, 3.3 - H/2))
    for (y0, *_), (y1, *_) in zip(enc, enc[1:]): arrow(ax, (E, y0 + H/2), (E, y1 - H/2))
    for y, t, m, k in enc: box(ax, E, y, t, m, k)
    # ---- decoder (right)
    ax.text(D, 0.1, 'Outputs (shifted right): tgt ids (B, T)', ha='center', fontsize=8.5)
    box(ax, D, 1.1, 'Output Embedding  (×√d_model)', 'Embeddings · 04 (tied)', 'emb'); arrow(ax, (D, 0.35), (D, 1.1 - H/2))
    plus(ax, D, 2.0); arrow(ax, (D, 1.1 + H/2), (D, 2.0 - 0.17))
    ax.text(D + 2.1, 2.08, 'Positional\nEncoding', ha='center', va='center', fontsize=8)
    ax.text(D + 2.1, 1.62, 'SinusoidalPositional-\nEncoding · 05', ha='center', va='center', fontsize=6.8, family='monospace', color='#1f3f7a')
    arrow(ax, (D + 1.15, 2.0), (D + 0.17, 2.0))
    ax.text(D + 0.25, 2.35, 'dropout', fontsize=7, color='#555555')
    dec = [(3.3, 'Masked Multi-Head Attention', 'MultiHeadAttention + tgt_mask · 02', 'attn'),
           (4.15, 'Add & Norm', 'SublayerConnection · 06', 'norm'),
           (5.15, 'Multi-Head Attention', 'MultiHeadAttention · 02', 'attn'),
           (6.0, 'Add & Norm', 'SublayerConnection · 06', 'norm'),
           (7.0, 'Feed Forward', 'FeedForward · 03', 'ffn'), (7.85, 'Add & Norm', 'SublayerConnection · 06', 'norm')]
    ax.add_patch(FancyBboxPatch((D - W/2 - 0.25, 2.75), W + 0.5, 5.5, boxstyle='round,pad=0.02,rounding_size=0.15', fc='#f2f2f2', ec='#666666', lw=0.8, zorder=0))
    ax.text(D + W/2 + 0.4, 5.6, '× N', ha='left', va='center', fontsize=10, weight='bold')
    ax.text(D + W/2 + 0.4, 5.2, 'DecoderLayer\n· 06', ha='left', va='center', fontsize=7.5, family='monospace', color='#1f3f7a')
    arrow(ax, (D, 2.0 + 0.17), (D, 3.3 - H/2))
    for (y0, *_), (y1, *_) in zip(dec, dec[1:]): arrow(ax, (D, y0 + H/2), (D, y1 - H/2))
    for y, t, m, k in dec: box(ax, D, y, t, m, k)
    box(ax, D, 8.95, 'Linear', 'Generator · 04 (tied)', 'out'); arrow(ax, (D, 7.85 + H/2), (D, 8.95 - H/2))
    box(ax, D, 9.8, 'Softmax', 'log_softmax in the loss (09), beam search (10)', 'out', w=3.6); arrow(ax, (D, 8.95 + H/2), (D, 9.8 - H/2))
    ax.text(D, 10.4, 'Output Probabilities (B, T, V)', ha='center', fontsize=8.5)
    # ---- memory: encoder output -> every decoder layer's cross-attention
    M = (E + D) / 2                                       # the memory runs up, across and into the cross-attention
    ax.plot([E, E, M, M], [6.0 + H/2, 6.8, 6.8, 5.15], color='#333333', lw=0.8)
    arrow(ax, (M, 5.15), (D - W/2, 5.15))
    ax.text(M + 0.1, 5.25, 'K, V', fontsize=7.5)
    ax.text(E - 1.75, 6.95, 'memory (B, S, d_model)\n= Transformer.encode(src)', ha='left', va='bottom', fontsize=7.5, family='monospace', color='#1f3f7a')
    ax.text(E, 8.9, 'the whole model: Transformer · 06\nforward(src, tgt) -> logits (B, T, V)', ha='center', fontsize=8.5, family='monospace', color='#1f3f7a', weight='bold')
    ax.set_title("The paper's Figure 1, each box labelled with the module that implements it (· notebook)", fontsize=10)
    return fig

def show_figure1():
    "Draw Figure 1 (`figure1_map`) in the page."
    figure1_map(); plt.show()

# Figure 1's boxes and the names the map and its table give them: tests/prose/index.py checks that each exists.
FIGURE1 = {'data': ['encode_pairs', 'collate'], 'embeddings': ['Embeddings', 'tie_weights', 'Generator'],
           'positional': ['SinusoidalPositionalEncoding', 'LearnedPositionalEmbedding'],
           'multihead': ['MultiHeadAttention'], 'attention': ['attention', 'tgt_mask', 'causal_mask', 'pad_mask'],
           'model': ['SublayerConnection', 'EncoderLayer', 'DecoderLayer', 'Transformer'], 'ffn': ['FeedForward'],
           'training': ['label_smoothed_nll'], 'decoding': ['beam_search', 'greedy_decode'],
           'lib.fast_decoding': ['beam_search_batch', 'log_probs', 'topk_log_probs']}

# ---- the paper path: notebook, the paper's section, what you will learn; the time of Run All from notebook_times.json
PATH = [
    ('00_core', '—', 'the special token ids, the device and the seed: what every later notebook needs'),
    ('01_attention', '§3.2.1', 'scaled dot-product attention, padding and causal masks, why $1/\\sqrt{d_k}$'),
    ('02_multihead', '§3.2.2–3.2.3', 'multi-head attention, what each head looks at, its three uses in the model'),
    ('03_ffn', '§3.3', 'the position-wise feed-forward network, two 1×1 convolutions, where the parameters are'),
    ('04_embeddings', '§3.4', 'embeddings scaled by $\\sqrt{d_{model}}$, the pre-softmax projection, weight tying'),
    ('05_positional_encoding', '§3.5', 'sinusoidal encodings, relative offsets as rotations, learned positions'),
    ('06_model', '§3.1, Table 3', 'sub-layers normalised after the residual (post-LN), the encoder and decoder stacks, every Table 3 model'),
    ('07_why_self_attention', '§4, Table 1', 'cost per layer, sequential operations and path length, measured'),
    ('08_data', '§5.1', 'the corpora, one subword (BPE) vocabulary for both languages, batches by token count'),
    ('09_training', '§5.2–5.4', 'the warm-up schedule, dropout, label smoothing, a training loop'),
    ('10_decoding', '§6.1', 'greedy and beam search, the length penalty, checkpoint averaging'),
    ('11_results', '§6.1, Table 2', 'BLEU with sacreBLEU and why scores disagree, Table 2 and its costs, our results beside it'),
    ('12_variations', '§6.2, Table 3', 'Table 3 at Multi30k scale against a seed band, a trained model\'s attention maps'),
    ('13_parsing', '§6.3, Table 4', 'constituency parsing as translation, scored by matched brackets (F1)'),
    ('14_since_2017', 'after the paper', "five later changes as swaps in the paper's model, measured on its task"),
]

def path_table() -> Markdown:
    """The paper path as a table: each notebook, its section, what it teaches, and the wall time of Run All; then the
    path's total, as wall time and CPU time, and the machine as the times file records it (`where_measured`)."""
    import sys
    sys.path.insert(0, str(ROOT / 'tools'))
    from run_notebooks import time_phrase, where_measured      # the course's one wording for running times
    times = _json('notebook_times.json')
    nbs, names = times['notebooks'], [n + '.ipynb' for n, *_ in PATH]
    rows = [f"| [{n}]({n}.ipynb) | {sec} | {what} | {time_phrase(nbs[n + '.ipynb']['seconds'])} |" for n, sec, what in PATH]
    wall, cpu = (sum(nbs[n][k] for n in names) for k in ('seconds', 'cpu_seconds'))
    return Markdown('| notebook | paper | what you will learn | Run All (wall time) |\n|---|---|---|---|\n' + '\n'.join(rows) +
                    f"\n\nIn all, Run All of the {len(PATH)} notebooks takes {time_phrase(wall)} of wall time "
                    f"({time_phrase(cpu)} of CPU time), one notebook at a time {where_measured(times, names)}.")

# ---- notation: symbol, what it is in the paper, in the code, the paper's value (base model, EN-DE), the default here
def notation() -> list[tuple]:
    "The notation table's rows; the last column is read from `get_model_config('base')`, `TrainConfig()` and `beam_search`."
    from transformer_nb.lib.options import get_model_config
    from transformer_nb.lib.options import TrainConfig
    from transformer_nb.decoding import beam_search
    base, train = get_model_config('base'), TrainConfig()
    beam = {k: v.default for k, v in inspect.signature(beam_search).parameters.items()}
    return [
        ('$B$', 'sentences in a batch (the paper batches by tokens: ~25,000 source + ~25,000 target per update)', '`src.shape[0]`; `TrainConfig.max_tokens` bounds tokens per side', '—', f'{train.max_tokens} tokens per side'),
        ('$S$', 'source length: subword tokens + end mark EOS', '`src.shape[1]`', '—', '—'),
        ('$T$', 'target length: start mark BOS + tokens (decoder input), or tokens + EOS (what it predicts)', '`tgt.shape[1]`', '—', '—'),
        ('$V$', 'vocabulary size: shared byte-pair encoding (§5.1)', '`src_vocab`, `tgt_vocab`', '37000', f'{base.src_vocab}'),
        ('$d_{model}$', 'width of every sub-layer output and embedding (§3.1)', '`d_model`', '512', f'{base.d_model}'),
        ('$h$', 'parallel attention heads (§3.2.2)', '`h`', '8', f'{base.h}'),
        ('$d_k$', 'query and key size per head', '`d_k`', '64', f'{base.d_k}'),
        ('$d_v$', 'value size per head', '`d_v`', '64', f'{base.d_v}'),
        ('$d_{ff}$', 'inner size of the feed-forward network (§3.3)', '`d_ff`', '2048', f'{base.d_ff}'),
        ('$N$', 'identical layers in each stack (§3.1)', '`N`', '6', f'{base.N}'),
        ('$P_{drop}$', 'residual and embedding dropout (§5.4)', '`p_drop`', '0.1', f'{base.p_drop}'),
        ('$\\epsilon_{ls}$', 'label smoothing (§5.4)', '`TrainConfig.eps_ls`', '0.1', f'{train.eps_ls}'),
        ('$warmup$', '`warmup_steps` of the learning-rate schedule (§5.3), in optimiser updates', '`TrainConfig.warmup`', '4000', f'{train.warmup}'),
        ('$k$', 'beam size (§6.1)', '`k`; the commands\' `--beam`', '4', f"{beam['k']}"),
        ('$\\alpha$', 'length penalty (§6.1; GNMT\'s $((5+\\lvert Y\\rvert)/6)^{\\alpha}$)', '`alpha`', '0.6', f"{beam['alpha']}"),
    ]

def notation_table() -> Markdown:
    head = '| symbol | meaning | in the code | paper (base model) | default here |\n|---|---|---|---|---|\n'
    return Markdown(head + '\n'.join('| ' + ' | '.join(r) + ' |' for r in notation()))

# ---- results, from the results files
def results_table() -> Markdown:
    "The headline: per corpus, direction and hardware, the record with the best lowercased BLEU (results/results.json)."
    from transformer_nb.lib.records import load_results, headline_table
    return Markdown(headline_table(load_results(RESULTS / 'results.json')))

def table3() -> Markdown:
    "Table 3's variations at Multi30k scale (results/table3_fp32.json: the one set-up with two seeds of its base), beside the paper's figures."
    from transformer_nb.lib.records import load_results
    from transformer_nb.lib.scoring import TABLE3_KEYS, table3_table
    from transformer_nb.lib.options import PRESETS
    return Markdown(table3_table(load_results(RESULTS / 'table3_fp32.json', TABLE3_KEYS), PRESETS['mini']))

def main_job_runs() -> list[dict]:
    "The records of the main job (`tnb-train` with its defaults, one per seed) in results/main_job.json (`experiments/numbers_recipe.py --cli`)."
    return [r for r in _json('main_job.json') if r['name'] == 'tnb-train']

# ---- the published models
def models_table() -> Markdown:
    "The published models (`PRETRAINED`): name, what it does, the file's size and sha256."
    from transformer_nb.lib.checkpoints import PRETRAINED
    rows = [f"| `{n}` | {p.about} | {p.file}, {p.size / 1e6:.1f} MB | `{p.sha256}` |" for n, p in PRETRAINED.items()]
    return Markdown('| name | what it does | file | sha256 |\n|---|---|---|---|\n' + '\n'.join(rows))

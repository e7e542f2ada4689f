"""The blind sets of answers to the paper notebooks' exercises (the thirteenth, `13`, the fourteenth, `14`, the
fifteenth, `15`, the sixteenth, `16`, the seventeenth, `17`, of notebooks 00 to 07 alone, the eighteenth, `18`, of notebooks 08 to 14 alone, the nineteenth, `19`, of notebooks 00 to 07 alone, the twentieth, `20`, of notebooks 08 to 14 alone, the twenty-first, `21`, of notebooks 00 to 07 alone, the twenty-second, `22`, of notebooks 08 to 14 alone, the twenty-third, `23`, of notebooks 00 to 07 alone, the twenty-fourth, `24`, of notebooks 00 to 07 alone, the twenty-fifth, `25`, of notebooks 08 to 14 alone, the twenty-sixth, `26`, of notebooks 00 to 07 alone, the twenty-seventh, `27`, of notebooks 08 to 14 alone, the twenty-eighth, `28`, of notebooks 00 to 03 alone, the twenty-ninth, `29`, of notebooks 04 to 07 alone, the thirtieth, `30`, of notebooks 08 to 10 alone, the thirty-first, `31`, of notebooks 11 to 14 alone, the thirty-second, `32`, of notebooks 00 to 03 alone, the thirty-third, `33`, of notebooks 04 to 07 alone, the thirty-fourth, `34`, of notebooks 08 to 10 alone, the thirty-fifth, `35`, of notebooks 11 to 14 alone, the thirty-sixth, `36`, of notebooks 00 to 03 alone, the thirty-seventh, `37`, of notebooks 04 to 07 alone, the thirty-eighth, `38`, of notebooks 08 to 10 alone, the thirty-ninth, `39`, of notebooks 11 to 14 alone, the fortieth, `40`, and the forty-first, `41`, of every paper notebook (00 to 14); each set's answers in `blind_answers_NN_set.py`): each answer (a right one per exercise, and the wrong
ones a learner writes) is run once through its check as the notebook's cell calls it, in a fresh namespace, and its
one-line message is written to stdout as JSON (notebook, exercise, mistake, verdict of the check, message).

    python experiments/blind_answers.py 14 > /tmp/answers_14.json             # or only some notebooks: 14 01 10

    python experiments/blind_answers.py 14 --record first_run /tmp/answers_14.json   # or --record after

The answers were written from the exercises' text alone. Every message was read; `--record` classes each wrong answer's
message as its set's VERDICTS say (named when it is not listed there: the message names the mistake) and writes the
table into results/checker_answers.json under the set's key (`sixteenth` for 16, `eighteenth` for 18, `nineteenth` for 19, `twentieth` for 20, `twenty-first` for 21, `twenty-second` for 22, `twenty-third` for 23, `twenty-fourth` for 24, `twenty-fifth` for 25, `twenty-sixth` for 26, `twenty-seventh` for 27, `twenty-eighth` for 28, `twenty-ninth` for 29, `thirtieth` for 30, `thirty-first` for 31, `thirty-second` for 32, `thirty-third` for 33, `thirty-fourth` for 34, `thirty-fifth` for 35, `thirty-sixth` for 36, `thirty-seventh` for 37, `thirty-eighth` for 38, `thirty-ninth` for 39, `fortieth` for 40, `forty-first` for 41; 14_since_2017, outside the paper's
tables, under its 'since_2017')."""
import contextlib, io, json, os, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMON = ("import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\n"
          "from transformer_nb.core import *\n")
PRELUDE = {
    '00_core': "from transformer_nb.course.core import check_pad_batch",
    '01_attention': "from transformer_nb.attention import *\nfrom transformer_nb.course.attention import check_attention, check_restricted",
    '02_multihead': "from transformer_nb.attention import *\nfrom transformer_nb.multihead import MultiHeadAttention\n"
                    "from transformer_nb.course.multihead import check_heads, check_loop_mha",
    '03_ffn': "from transformer_nb.ffn import *\nfrom transformer_nb.course.ffn import check_conv_to_ffn",
    '04_embeddings': "from transformer_nb.embeddings import *\nfrom transformer_nb.course.embeddings import check_my_embeddings",
    '05_positional_encoding': "from transformer_nb.positional import *\nfrom transformer_nb.course.positional import check_encoding, check_relative_bias",
    '06_model': "from transformer_nb.model import *\nfrom transformer_nb.attention import pad_mask, tgt_mask as make_tgt_mask\n"
                "from transformer_nb.config import TransformerConfig\nfrom transformer_nb.core import count_params\n"
                "from transformer_nb.course.model import check_sublayer, check_forward, check_parsing_counts",
    '07_why_self_attention': "from transformer_nb.complexity import local_mask\nfrom transformer_nb.attention import attention\n"
                             "from transformer_nb.course.complexity import check_restricted_attention",
    '08_data': "from transformer_nb.course.data import check_bpe",
    '09_training': "from transformer_nb.course.training import check_schedule, check_label_smoothing",
    '10_decoding': None,   # the notebook's own cells up to the exercise: its toy model, trained as the notebook trains it
    '11_results': "from transformer_nb.course.evaluation import check_bleu",
    '12_variations': "from transformer_nb.lib.options import PAPER_TABLE3, PRESETS\nfrom transformer_nb.course.variations import check_beyond_noise, check_heads_looking, check_rows_ab",
    '13_parsing': "from transformer_nb.parsing import coarse_label, is_preterminal\nfrom transformer_nb.course.parsing import check_linearize, check_corpus_prf",
    '14_since_2017': "from transformer_nb.since2017 import *\nfrom transformer_nb.course.since2017 import check_rms_norm, check_rotate, check_group_kv",
}
CALL = {'pad_batch': 'check_pad_batch(pad_batch)', 'attention': 'check_attention(my_attention)',
        'restricted_mask': 'check_restricted(restricted_mask)', 'heads': 'check_heads(split_heads, merge_heads)',
        'LoopMHA': 'check_loop_mha(LoopMHA)', 'conv_to_ffn': 'check_conv_to_ffn(conv_to_ffn)',
        'MyEmbeddings': 'check_my_embeddings(MyEmbeddings)', 'my_encoding': 'check_encoding(my_encoding)',
        'RelativeBias': 'check_relative_bias(RelativeBias)', 'MySublayer': 'check_sublayer(MySublayer)',
        'my_forward': 'check_forward(my_forward)', 'parsing_counts': 'check_parsing_counts(parsing_counts)',
        'restricted_attention': 'check_restricted_attention(restricted_attention)', 'bpe': 'check_bpe(learn_bpe, segment)',
        'my_noam_lr': 'check_schedule(my_noam_lr)', 'my_label_smoothing': 'check_label_smoothing(my_label_smoothing)',
        'my_greedy_step': 'check_greedy_step(my_greedy_step, model)', 'my_bleu': 'check_bleu(my_bleu)',
        'beyond_noise': 'check_beyond_noise(beyond_noise)', 'heads_looking': 'check_heads_looking(heads_looking)',
        'rows_ab': 'check_rows_ab(rows_ab)', 'my_linearize': 'check_linearize(my_linearize)',
        'my_corpus_prf': 'check_corpus_prf(my_corpus_prf)', 'rms_norm_of': 'check_rms_norm(rms_norm_of)',
        'rotate_query': 'check_rotate(rotate_query)', 'group_heads': 'check_group_kv(group_heads)'}

def notebook_prelude(nb:str) -> str:
    "The code cells of nbs/`nb`.ipynb before its exercise's stub (the Colab cell and IPython-only lines left out)."
    cells = json.loads((ROOT / 'nbs' / f'{nb}.ipynb').read_text())['cells']
    out = []
    for c in cells:
        s = ''.join(c['source'])
        if c['cell_type'] != 'code' or 'google.colab' in s: continue
        if 'raise NotImplementedError' in s: break
        out.append('\n'.join(l for l in s.splitlines() if not l.lstrip().startswith(('%', '!'))))
    return '\n'.join(out)

sys.path[:0] = [str(ROOT), str(Path(__file__).parent)]   # this checkout's transformer_nb, whatever is installed
import importlib   # noqa: E402

def run(nb, exercise, code, base):
    ns = dict(base)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(code, ns)
            ok = eval(CALL[exercise], ns)
    except Exception as e:   # a raw traceback: the check crashed on this answer
        return None, f'CRASH {type(e).__name__}: {e}'.splitlines()[0]
    return ok, ' '.join(out.getvalue().split('\n')).strip()

KINDS = ('named', 'generic', 'misleading', 'passed', 'crashed')
# Each set: its key in results/checker_answers.json, its answers' module, and the messages that do not name their
# answer's mistake, as read ((table, notebook, mistake) -> verdict), and the wrong answers left out, each equal to a
# right answer on every input the exercise allows
SETS = {
    '13': ('thirteenth', 'blind_answers_13_set', {
              ('first_run', '06_model', 'pre-LN in the decoder self-attention'): 'generic',
              ('first_run', '09_training', 'warmup ** -0.5 in the warm-up'): 'misleading',
              ('first_run', '09_training', 'warmup ** -1 in the warm-up'): 'misleading',
              ('first_run', '09_training', 'eps and 1 - eps swapped'): 'generic',
              ('first_run', '14_since_2017', 'turned the wrong way'): 'generic',
              ('first_run', '14_since_2017', 'theta_i = 10000^(2i/d), the inverse'): 'generic',
              ('first_run', '14_since_2017', 'the angle m / theta_i'): 'generic',
          },
           {('12_variations', 'seed runs counted as variants')}),
    '14': ('fourteenth', 'blind_answers_14_set', {
              ('first_run', '01_attention', 'scores set with boolean indexing (needs a full-shape mask)'): 'generic',
              ('first_run', '10_decoding', 'argmax over the positions'): 'misleading',
              ('first_run', '11_results', 'lengths in characters'): 'misleading',
              ('first_run', '14_since_2017', 'pairs rotated right, the output laid out as halves'): 'misleading',
          },
           set()),
    '15': ('fifteenth', 'blind_answers_15_set', {
              ('first_run', '02_multihead', 'one Linear repeated h times in the list ([lin] * h): the heads share it'): 'generic',
              ('first_run', '05_positional_encoding', 'a leading batch axis: (1, n, d_model)'): 'generic',
              ('first_run', '06_model', 'F.dropout without training=: dropout in eval too'): 'generic',
              ('first_run', '07_why_self_attention', 'softmax over the feature axis of the values, not the window'): 'misleading',
              ('first_run', '14_since_2017', 'the mean without keepdim'): 'generic',
              ('first_run', '14_since_2017', '2i taken from arange(0, d, 2) and doubled: theta_i = 10000^(-4i/d)'): 'misleading',
          },
           {('04_embeddings', "the parameter named weight, nn.Embedding's name"),
            ('05_positional_encoding', 'returned in float64')}),
    '16': ('sixteenth', 'blind_answers_16_set', {
              ('first_run', '00_core', "one 1-d stream of all the ids, nanoGPT's concatenation"): 'generic',
              ('first_run', '00_core', "EOS appended to each sentence before padding (fairseq's append_eos)"): 'generic',
              ('first_run', '00_core', 'returns the attention mask (ids != pad_id), not the ids'): 'generic',
              ('first_run', '01_attention', 'arguments read as (r, n)'): 'generic',
              ('first_run', '04_embeddings', 'the scale folded into the initial table, not applied in forward'): 'generic',
              ('first_run', '04_embeddings', 'forward returns (embeddings, padding mask)'): 'generic',
              ('first_run', '05_positional_encoding', "a learned table (nn.Embedding's weight), as GPT-2's positions"): 'generic',
              ('first_run', '05_positional_encoding', 'queries aligned to the last keys (a decoding cache): offset j - i - (n_k - n_q)'): 'generic',
              ('first_run', '05_positional_encoding', 'forward(n_k, n_q): the arguments read the other way'): 'misleading',
              ('first_run', '07_why_self_attention', 'windows of 2w rows: unfold(-2, 2 * w, 1)'): 'misleading',
              ('first_run', '07_why_self_attention', 'divided by sqrt(d_k) after the softmax'): 'misleading',
              ('first_run', '08_data', "SentencePiece's word-start marker '\u2581' in front, no '</w>'"): 'misleading',
              ('first_run', '08_data', 'pairs counted on the original characters every round'): 'misleading',
              ('first_run', '11_results', "refs read as sacreBLEU's list of reference streams (refs[0])"): 'generic',
              ('first_run', '12_variations', "(A) named from the head size, 'A-h64'"): 'misleading',
              ('first_run', '13_parsing', "NumPy sum(axis=1): each sentence's three counts summed"): 'generic',
              ('first_run', '14_since_2017', "Gemma's gain (1 + g)"): 'generic',
              ('first_run', '14_since_2017', 'mean over axis 1, not the last'): 'generic',
              ('first_run', '14_since_2017', 'the gain applied before the norm: it cancels'): 'generic',
              ('first_run', '14_since_2017', 'squares summed over d - 1 (an unbiased mean)'): 'generic',
              ('first_run', '14_since_2017', 'a complex tensor of d/2 numbers'): 'generic',
              ('first_run', '14_since_2017', 'each pair swapped (x2, x1) without the minus sign'): 'generic',
              ('first_run', '14_since_2017', "flash attention's (B, n, h, d) layout assumed"): 'generic',
          },
           set()),
    '17': ('seventeenth', 'blind_answers_17_set', {
              ('first_run', '00_core', 'BOS prepended to each sentence (add_special_tokens)'): 'generic',
              ('first_run', '00_core', "pads with -1, nanoGPT's ignore index, not pad_id"): 'generic',
              ('first_run', '00_core', 'pad_id without its default'): 'generic',
              ('first_run', '00_core', 'the time-first (n, B) batch of pad_sequence viewed as (B, n), not transposed'): 'generic',
              ('first_run', '01_attention', "a causal mask always applied (LLMs-from-scratch's CausalAttention)"): 'misleading',
              ('first_run', '01_attention', "the weights averaged over the heads (nn.MultiheadAttention's average_attn_weights)"): 'generic',
              ('first_run', '01_attention', "the mask unsqueezed at 1, as for Hugging Face's (B, n_k) padding mask"): 'generic',
              ('first_run', '01_attention', 'log_softmax for the weights'): 'generic',
              ('first_run', '01_attention', 'a softmax by hand without keepdim'): 'generic',
              ('first_run', '02_multihead', 'merge flattened from axis 1: one vector per sentence'): 'generic',
              ('first_run', '02_multihead', 'load_from takes the rows i::h (heads interleaved)'): 'generic',
              ('first_run', '02_multihead', 'd_k = d_model / h, a float'): 'generic',
              ('first_run', '03_ffn', "bias-free Linears (T5's and LLaMA's FFN): the biases dropped"): 'generic',
              ('first_run', '03_ffn', "GELU in place of the ReLU (BERT's and GPT-2's activation)"): 'misleading',
              ('first_run', '04_embeddings', "returns (n, B, d_model), fairseq's time-first layout"): 'generic',
              ('first_run', '05_positional_encoding', 'the pairs left stacked: (n, d_model/2, 2)'): 'misleading',
              ('first_run', '06_model', "returns a 1-tuple (hidden_states,), as Hugging Face's layers do"): 'generic',
              ('first_run', '06_model', 'the embeddings scaled by sqrt(d_model) again (the Embeddings already scale)'): 'misleading',
              ('first_run', '06_model', 'returns (logits, memory), as a seq2seq output'): 'generic',
              ('first_run', '07_why_self_attention', 'windows by torch.roll: the ends wrap around'): 'misleading',
              ('first_run', '07_why_self_attention', 'unfold(1, ...): the head axis windowed (a 3-d (B, n, d) habit)'): 'generic',
              ('first_run', '07_why_self_attention', 'a loop over queries slicing [i - w : i + w + 1]: a negative start empties the window'): 'misleading',
              ('first_run', '07_why_self_attention', 'the band read off full scores (q @ k^T) with torch.diagonal'): 'generic',
           },
            set()),
    '18': ('eighteenth', 'blind_answers_18_set', {
              ('first_run', '08_data', "subword-nmt's min_frequency 2: stops when the best pair occurs once"): 'misleading',
              ('first_run', '08_data', "minbpe's one stream: the words joined, pairs counted across word boundaries"): 'misleading',
              ('first_run', '08_data', "GPT-2's bpe_ranks: a dict pair -> rank, not a list"): 'generic',
              ('first_run', '09_training', "nanoGPT's get_lr: linear warm-up to 6e-4, then cosine decay"): 'generic',
              ('first_run', '09_training', 'arguments read in the order (step, warmup, d_model)'): 'misleading',
              ('first_run', '09_training', "Hugging Face's causal-LM shift: logits[:, :-1] scored against target[:, 1:]"): 'generic',
              ('first_run', '09_training', 'the sum over every position divided by the non-pad count (pads not masked out of the sum)'): 'generic',
              ('first_run', '10_decoding', "nanoGPT's context crop: only the last 3 tokens of the prefix fed"): 'generic',
              ('first_run', '10_decoding', "a batch of one assumed, as Hugging Face's examples: the first row's token, a 0-d tensor"): 'misleading',
              ('first_run', '11_results', "NLTK's list of references per hypothesis: each reference string iterated as references (its characters)"): 'generic',
              ('first_run', '11_results', 'n-grams counted with range(len(ws) - n): the last one missed'): 'generic',
              ('first_run', '11_results', 'lengths not accumulated: c and r of the last sentence only'): 'generic',
              ('first_run', '13_parsing', "nltk's own bracketing: str(tree) on one line"): 'generic',
              ('first_run', '14_since_2017', "GPT-NeoX's rotary_pct 0.25: only the first quarter of the coordinates turned"): 'generic',
              ('first_run', '14_since_2017', "Hugging Face's cos/sin laid out as halves (cat([a, a])) applied to interleaved pairs"): 'generic',
              ('first_run', '14_since_2017', 'the mean taken across the groups (axis 1 of (B, g, h/g, n, d)), not within'): 'generic',
              ('first_run', '14_since_2017', 'the sum of the group divided by g, not by h/g'): 'generic',
          },
           set()),
    '19': ('nineteenth', 'blind_answers_19_set', {
              ('first_run', '00_core', 'squeeze() at the end: a batch of one loses its batch axis'): 'misleading',
              ('first_run', '00_core', 'the pads put before the last token (EOS kept at the end of each row)'): 'generic',
              ('first_run', '00_core', 'a return inside the loop: only the first row, padded'): 'generic',
              ('first_run', '01_attention', 'the output returned as a NumPy array'): 'misleading',
              ('first_run', '02_multihead', "the paper's W layout: each head's rows copied transposed"): 'generic',
              ('first_run', '04_embeddings', 'returns (B, d_model, n), a Conv1d layout'): 'generic',
              ('first_run', '04_embeddings', 'E registered as a buffer, not a parameter'): 'generic',
              ('first_run', '04_embeddings', 'tokens flattened: returns (B * n, d_model)'): 'generic',
              ('first_run', '05_positional_encoding', 'd_model = 512 hard-coded in the frequencies'): 'generic',
              ('first_run', '05_positional_encoding', "a leading batch axis (1, h, n_q, n_k), Hugging Face's T5 position_bias"): 'generic',
              ('first_run', '07_why_self_attention', 'computed in NumPy (sliding_window_view): an ndarray returned'): 'misleading',
           },
            set()),
    '20': ('twentieth', 'blind_answers_20_set', {
              ('first_run', '08_data', "d2l's '_' as the end-of-word symbol, not '</w>'"): 'misleading',
              ('first_run', '08_data', "'</w>' split into its characters: list(w + '</w>')"): 'generic',
              ('first_run', '09_training', 'rounded to 6 decimals, as a training log prints it'): 'misleading',
              ('first_run', '09_training', "LambdaLR's multiplier: the schedule normalised to 1 at its peak, d_model dropped"): 'generic',
              ('first_run', '09_training', 'the pad mask inverted: the mean over the pad positions'): 'generic',
              ('first_run', '09_training', "fairseq's criterion: returns (loss, number of tokens)"): 'generic',
              ('first_run', '10_decoding', 'the second-to-last position, [:, ys.shape[1] - 2] (off by one)'): 'generic',
              ('first_run', '10_decoding', "Hugging Face's output object: model(...).logits"): 'generic',
              ('first_run', '11_results', 'the corpus joined into one stream: n-grams across sentence boundaries'): 'misleading',
              ('first_run', '11_results', 'the formula copied literally with weights 1/4 applied to log p_n summed, then BP added, not multiplied'): 'generic',
              ('first_run', '12_variations', "the example's 8 heads hard-coded: range(8)"): 'misleading',
              ('first_run', '13_parsing', 'a torch user: the counts summed as a tensor, three 0-d tensors returned'): 'misleading',
              ('first_run', '14_since_2017', "LLaMA's eps 1e-6 hard-coded, the argument ignored"): 'generic',
          },
           {('13_parsing', 'bare words under a phrase not handled: str has no label()'),
            ('14_since_2017', "returned in float64 whatever q's dtype")}),   # both accepted by the course: no mistake
    '21': ('twenty-first', 'blind_answers_21_set', {
              ('first_run', '00_core', 'identical sentences merged (dict.fromkeys of tuples): fewer rows'): 'generic',
              ('first_run', '00_core', 'torch.empty prefilled: the pads are whatever memory held'): 'generic',
              ('first_run', '00_core', 'every id equal to pad_id inside a sentence dropped first (pads stripped, then padded)'): 'generic',
              ('first_run', '01_attention', 'd_k ** (1 // 2): integer division, the exponent 0 (no scale)'): 'generic',
              ('first_run', '01_attention', 'attention dropout F.dropout(w, 0.1) (training=True by default)'): 'generic',
              ('first_run', '01_attention', 'triu and tril bounds swapped: ones.triu(w).tril(-w)'): 'generic',
              ('first_run', '01_attention', 'diagonals range(-w, w): the last one missed (an exclusive stop)'): 'generic',
              ('first_run', '02_multihead', "attention(...)[1], the weights, taken as the head's output"): 'misleading',
              ('first_run', '02_multihead', 'load_from without torch.no_grad(): copy_ into a leaf that requires grad'): 'generic',
              ('first_run', '03_ffn', 'the FeedForward put on the meta device (its weights never filled)'): 'generic',
              ('first_run', '03_ffn', 'a ReLU added after the second layer too (the stack read as Conv, ReLU, Conv, ReLU)'): 'generic',
              ('first_run', '03_ffn', 'the weights copied in float16 (a memory-saving habit): rounded'): 'misleading',
              ('first_run', '04_embeddings', 'the pad mask unsqueezed at axis 1, not -1 (right only when n = d_model)'): 'generic',
              ('first_run', '05_positional_encoding', 'positions 0 .. n inclusive: n + 1 rows'): 'generic',
              ('first_run', '05_positional_encoding', "fairseq's frequencies 10000^(-i/(d/2 - 1)), interleaved"): 'generic',
              ('first_run', '06_model', 'an nn.Dropout made inside forward: always in training mode'): 'misleading',
              ('first_run', '06_model', 'forward puts the layer back in training mode (self.train())'): 'generic',
              ('first_run', '06_model', "the encoder's layers run in reverse"): 'generic',
              ('first_run', '06_model', 'the counts in millions, rounded'): 'generic',
              ('first_run', '06_model', 'counted over state_dict(): the tied matrix three times, the buffers too'): 'generic',
              ('first_run', '07_why_self_attention', 'computed in float64 and returned so (.double())'): 'generic',
              ('first_run', '07_why_self_attention', 'window positions taken as i .. i + 2w (arange(2w + 1)), not i - w .. i + w: the mask shifted'): 'misleading',
              ('first_run', '07_why_self_attention', 'padded rows given a score of -1e4 in float16 arithmetic (the scores cast to half)'): 'generic',
              ('first_run', '07_why_self_attention', 'a batch of one assumed: q[0] windowed, the batch axis added back'): 'generic',
           },
            {('04_embeddings', 'the parameter named emb, not E')}),
    '22': ('twenty-second', 'blind_answers_22_set', {
              ('first_run', '08_data', "subword-nmt's ten merges hard-coded (the paper's num_merges = 10), n_merges ignored"): 'misleading',
              ('first_run', '08_data', "subword-nmt's output: '@@' on each piece but the last, no '</w>'"): 'misleading',
              ('first_run', '09_training', "fairseq's warmup_init_lr 1e-7: the warm-up starts from 1e-7, not 0"): 'generic',
              ('first_run', '09_training', "T5's rsqrt schedule: 1/sqrt(max(step, warmup)), constant through the warm-up"): 'generic',
              ('first_run', '09_training', "the TensorFlow tutorial's CustomSchedule: a class built from (d_model, warmup), called with step"): 'generic',
              ('first_run', '10_decoding', "the position read from the source's length: [:, src.shape[1] - 1] clipped to the prefix"): 'generic',
              ('first_run', '11_results', "d2l's bleu per sentence (weights 1/2^n, its brevity factor), averaged over the sentences"): 'misleading',
              ('first_run', '11_results', 'the totals counted as distinct n-grams: len(Counter)'): 'generic',
              ('first_run', '11_results', 'log10 inside, math.exp outside'): 'misleading',
              ('first_run', '11_results', "a C-style loop that splits the caller's lists in place (hyps[i] = hyps[i].split())"): 'misleading',
              ('first_run', '11_results', "clipped against the whole corpus's reference counts, not each sentence's"): 'misleading',   # the answer before it had split the check's own cases
              ('first_run', '12_variations', 'a return inside the loop: the first head found only'): 'generic',
              ('first_run', '13_parsing', "EVALB's deletions: punctuation POS nodes (',', '.', ':', '``', \"''\") dropped"): 'generic',
              ('first_run', '14_since_2017', 'd read from axis 1 (a 2-d (n, d) input assumed): the squares summed over the last axis, divided by a.shape[1]'): 'generic',
              ('first_run', '14_since_2017', 'the mean taken in float64 (mean(dtype=torch.float64)) and returned so'): 'misleading',
          },
           {('12_variations', "ties counted as looking: w[h, r, col] == w[h, r].max()")}),   # a tie puts the largest weight on col too: no mistake
    '23': ('twenty-third', 'blind_answers_23_set', {
              ('first_run', '01_attention', 'NumPy arrays returned (the math done in NumPy)'): 'generic',
              ('first_run', '02_multihead', 'W^O created in forward: a fresh random layer each call'): 'misleading',
              ('first_run', '02_multihead', 'dropout 0.1 on the weights with F.dropout (always on)'): 'misleading',
              ('first_run', '04_embeddings', 'the table created in forward on the first call (lazy, as Keras builds)'): 'misleading',
              ('first_run', '05_positional_encoding', 'computed in bfloat16'): 'misleading',
              ('first_run', '05_positional_encoding', 'exponents from linspace(0, 1, d/2): the last one 1, not (d - 2)/d'): 'generic',
              ('first_run', '05_positional_encoding', 'sin and cos stacked on a new first axis and reshaped to (n, d_model): rows mixed'): 'generic',
              ('first_run', '05_positional_encoding', 'the table a plain tensor attribute, not an nn.Parameter'): 'generic',
              ('first_run', '05_positional_encoding', 'one column shared by the heads, expanded to h'): 'generic',
              ('first_run', '05_positional_encoding', 'the table created in forward on each call'): 'generic',
              ('first_run', '06_model', 'F.layer_norm with no learned gain and bias'): 'generic',
              ('first_run', '06_model', 'nn.LayerNorm created in forward: its parameters not registered'): 'misleading',
              ('first_run', '07_why_self_attention', "unfold's windows read by reshape as (.., 2w + 1, d_k), not permuted"): 'generic',
           },
            {('04_embeddings', 'one_hot(tokens) @ E: the vocabulary size inferred from the largest id')}),
    '24': ('twenty-fourth', 'blind_answers_24_set', {
              ('first_run', '00_core', 'C loop to len(s) - 1: the last token of each sentence left as a pad'): 'generic',
              ('first_run', '00_core', 'one row buffer reused for every sentence: all rows alias the last one'): 'generic',
              ('first_run', '01_attention', 'an even r refused (assert r % 2 == 1)'): 'misleading',
              ('first_run', '01_attention', 'positions as uint8 (a C unsigned index): i - j wraps around'): 'generic',
              ('first_run', '02_multihead', 'x.split(h, -1): pieces of size h, not h pieces'): 'generic',
              ('first_run', '02_multihead', 'split in NumPy (reshape, transpose): an ndarray returned'): 'misleading',
              ('first_run', '02_multihead', 'only the first batch element split, broadcast to the batch'): 'misleading',
              ('first_run', '02_multihead', 'merge by torch.cat(list(x), -1): the batch concatenated, not the heads'): 'generic',
              ('first_run', '03_ffn', "the conv kept and called on transposed inputs (the FeedForward's own weights unused)"): 'generic',
              ('first_run', '04_embeddings', 'returns the embeddings as float64'): 'generic',
              ('first_run', '05_positional_encoding', 'positions and frequencies broadcast the other way: angle (d_model/2, n), assigned transposed'): 'generic',
              ('first_run', '05_positional_encoding', 'the angle in degrees: torch.deg2rad applied before sin/cos'): 'generic',
              ('first_run', '06_model', 'a LayerNorm by hand with the mean and variance without keepdim'): 'generic',
              ('first_run', '06_model', 'the LayerNorm without a bias (bias=False)'): 'misleading',
              ('first_run', '07_why_self_attention', 'the keys padded with -inf (F.pad value=-inf) for the -inf scores'): 'misleading',
              ('first_run', '07_why_self_attention', 'heads folded batch-major, unfolded head-major: right for B = 1 or h = 1'): 'generic',
              ('first_run', '07_why_self_attention', 'the keys padded but the values not: windows of v start w rows late'): 'misleading',
              ('first_run', '07_why_self_attention', 'blocks, not windows: unfold with step 2w + 1 (block-local attention)'): 'misleading',
           },
            {('05_positional_encoding', "the pe returned with requires_grad (an nn.Parameter, GPT-2's learnable table from the sinusoids)")}),   # a Parameter is a tensor of the same values: no mistake
    '25': ('twenty-fifth', 'blind_answers_25_set', {
              ('first_run', '08_data', "n_merges read as a vocabulary size (Hugging Face's vocab_size): n_merges minus the alphabet's symbols"): 'generic',
              ('first_run', '08_data', "'</w>' left out of the pair counts: a merge never takes the end-of-word symbol"): 'misleading',
              ('first_run', '08_data', 'a merge applied to the first word that holds the pair only (a break after the first word)'): 'misleading',
              ('first_run', '09_training', "returns [lr], a list as scheduler.get_last_lr() gives it"): 'misleading',
              ('first_run', '09_training', 'target.unsqueeze(1) for the scatter on axis 1: right for 2-d (N, V) logits only'): 'generic',
              ('first_run', '10_decoding', "the first row's token repeated for the whole batch"): 'generic',
              ('first_run', '10_decoding', 'no causal mask on the prefix (None): earlier positions see later ones'): 'misleading',
              ('first_run', '10_decoding', 'the source stripped of its padding as one flat row: src[src != PAD_ID][None]'): 'generic',
              ('first_run', '11_results', 'p_n = m // t: floor division'): 'misleading',
              ('first_run', '11_results', "rounded to one decimal, as the paper's tables print it"): 'misleading',
              ('first_run', '12_variations', 'rows read as an inclusive (first, last) range'): 'generic',
              ('first_run', '12_variations', 'each entry the whole configuration (base merged in), not the overrides'): 'misleading',
              ('first_run', '13_parsing', "nltk's collapse_unary: a chain of one-child phrases written as one bracket 'S+VP'"): 'generic',
              ('first_run', '14_since_2017', 'the mean over the last two axes (the whole (n, d) block)'): 'generic',
              ('first_run', '14_since_2017', 'eps squared under the root (eps read as a floor on the RMS)'): 'generic',
              ('first_run', '14_since_2017', "fairseq's exponents over d - 2: theta_i = 10000^(-2i/(d - 2))"): 'misleading',
              ('first_run', '14_since_2017', 'a batch of one assumed: k[0] grouped, the batch axis added back'): 'generic',
              ('first_run', '14_since_2017', "Hugging Face's repeat_kv on the h heads: each head repeated h/g times, no mean"): 'misleading',
          },
           {('13_parsing', 'a POS node found by height() == 2: a node of bare words gives its first word only')}),   # the exercise's trees put every word under a POS node: no mistake
    '26': ('twenty-sixth', 'blind_answers_26_set', {
              ('first_run', '00_core', 'the longest length kept between calls (state): a later, shorter batch padded too wide'): 'generic',
              ('first_run', '01_attention', 'scaled by sqrt(q.shape[1]): axis 1, not the last'): 'generic',
              ('first_run', '01_attention', 'the weights transposed before the values (w.mT @ v): right only when n_q = n_k'): 'generic',
              ('first_run', '01_attention', 'the inverted mask cached by its shape (state kept between calls): a later mask of that shape ignored'): 'misleading',
              ('first_run', '02_multihead', 'merge right for one batch element only (x[0])'): 'generic',
              ('first_run', '02_multihead', 'merge reshapes to the shape split last saw (state kept between calls)'): 'generic',
              ('first_run', '02_multihead', 'merge with a C-style loop that writes head i at columns i .. i + d (step 1, not d)'): 'generic',
              ('first_run', '02_multihead', 'the mask applied in self-attention only (the cross-attention unmasked)'): 'misleading',
              ('first_run', '05_positional_encoding', 'a C-style loop over the pairs to d_model // 2 - 1: the last pair left zero'): 'misleading',
              ('first_run', '05_positional_encoding', "a table cached per d_model from the first call's n (state kept between calls)"): 'misleading',
              ('first_run', '05_positional_encoding', "head 0's column for every head (right only for h = 1)"): 'generic',
              ('first_run', '05_positional_encoding', 'offsets from float aranges (arange(n, dtype=torch.float32)): float indices'): 'generic',
              ('first_run', '06_model', 'the LayerNorm in float64, returned in float64'): 'generic',
              ('first_run', '06_model', "a final LayerNorm on the memory (the Annotated Transformer's Encoder.norm), the last layer's norm reused"): 'generic',
              ('first_run', '06_model', "late-binding lambdas built in a loop: every sub-layer calls the last layer's parts"): 'generic',
              ('first_run', '06_model', 'the positions added twice (src_pos applied to its own output)'): 'misleading',
              ('first_run', '07_why_self_attention', 'the first head only, broadcast to every head (right for h = 1)'): 'generic',
          },
           set()),
    '27': ('twenty-seventh', 'blind_answers_27_set', {
              ('first_run', '08_data', "pairs counted over one stream of all the words, across word ends (minbpe's text)"): 'misleading',
              ('first_run', '08_data', 'segment caches by word in a default dict argument (stale for other merges)'): 'misleading',
              ('first_run', '09_training', "fairseq's inverse_sqrt with its peak lr 5e-4"): 'generic',
              ('first_run', '09_training', 'nothing returned at step 0 (None)'): 'generic',
              ('first_run', '10_decoding', 'topk(1).indices.squeeze(): a batch of one gives a 0-d tensor'): 'misleading',
              ('first_run', '10_decoding', 'log-probabilities with PAD and BOS set to 0, not -inf'): 'misleading',
              ('first_run', '10_decoding', 'BOS prepended again (ys already starts with it)'): 'misleading',
              ('first_run', '14_since_2017', "the squares' sum divided by a.shape[0], not the last axis's size"): 'generic',
              ('first_run', '14_since_2017', 'd hard-coded 64'): 'misleading',
              ('first_run', '14_since_2017', 'a loop with 2 * i // d (integer division)'): 'generic',
          },
           {('09_training', 'computed and returned in float64')}),   # a float64 loss of float32 logits backpropagates the same gradients, more precisely: no mistake
    '28': ('twenty-eighth', 'blind_answers_28_set', {
              ('first_run', '00_core', 'empty sentences skipped: fewer rows than sentences'): 'misleading',
              ('first_run', '00_core', 'the pads split between both ends (each sentence centred)'): 'generic',
              ('first_run', '00_core', 'the longest of the first two sentences only (tuned to the example of two)'): 'generic',
              ('first_run', '00_core', 'two slips that cancel on the example: one pad too many, then the first column dropped'): 'generic',
              ('first_run', '00_core', 'a while loop to n - 1: every shorter sentence one pad short'): 'generic',
              ('first_run', '00_core', 'the width counted in distinct ids (len(set(s))): a sentence with a repeated id is cut'): 'generic',
              ('first_run', '01_attention', 'softmax(dim=2): the key axis of 3-d inputs only'): 'generic',
              ('first_run', '01_attention', 'the NaN rows zeroed in place on the softmax output (w[w.isnan()] = 0): backward fails'): 'generic',
              ('first_run', '01_attention', 'the output from the keys (w @ k), not the values'): 'generic',
              ('first_run', '01_attention', 'if mask: (the truth of a tensor)'): 'misleading',
              ('first_run', '01_attention', 'the mask transposed (its last two axes swapped): a padding mask hides queries'): 'misleading',
              ('first_run', '01_attention', "the softmax in float32 (s.float()), cast back to the inputs' dtype"): 'misleading',
              ('first_run', '01_attention', 'max_pool1d of the identity with kernel r: right for an odd r only'): 'generic',
              ('first_run', '02_multihead', 'merge unpacks the input as (B, n, h, d): right only when h = n'): 'generic',
              ('first_run', '02_multihead', "mask[:, :, 0]: the first query's row for every query (right for padding masks)"): 'misleading',
              ('first_run', '02_multihead', 'a causal mask always applied (a decoder habit)'): 'misleading',
              ('first_run', '03_ffn', "a FeedForward that reads the conv's (B, d_model, n) layout"): 'generic',
              ('first_run', '03_ffn', 'c.weight[:, 0, :]: the first input channel, broadcast by copy_'): 'generic',
              ('first_run', '03_ffn', 'the weights summed over the input channels (sum(1)) rather than the kernel axis'): 'generic',
              ('first_run', '03_ffn', 'the ReLU of the conv stack applied before the first layer too (F.relu on the input)'): 'generic',
              ('first_run', '03_ffn', "d_ff = 4 * d_model, the paper's ratio, not read from the conv"): 'misleading',
              ('first_run', '03_ffn', "d_model read from conv[2]'s input axis (d_ff)"): 'misleading',
          },
           set()),
    '29': ('twenty-ninth', 'blind_answers_29_set', {
              ('first_run', '04_embeddings', 'F.one_hot without num_classes: width max id + 1, not vocab'): 'generic',
              ('first_run', '04_embeddings', 'E frozen (requires_grad=False), as a fixed table'): 'misleading',
              ('first_run', '05_positional_encoding', 'F.one_hot of the clipped index without num_classes: breaks when the offsets do not reach K'): 'generic',
              ('first_run', '05_positional_encoding', '10e4 typed for 10000 (that is 100000)'): 'generic',
              ('first_run', '05_positional_encoding', 'positions by linspace(0, n, n): spaced n/(n - 1) apart'): 'generic',
              ('first_run', '05_positional_encoding', 'squeeze() at the end: h = 1 (or n_q = 1) loses an axis'): 'misleading',
              ('first_run', '06_model', 'nn.Dropout1d: whole positions dropped, not single features'): 'misleading',
              ('first_run', '06_model', 'the source mask (B, S) without its head and query axes'): 'generic',
              ('first_run', '06_model', "the FFN sub-layer fed the layer's input, not the attention sub-layer's output"): 'generic',
              ('first_run', '07_why_self_attention', 'the mask inverted in torch.where: the padded rows kept, the real ones -inf'): 'misleading',
              ('first_run', '07_why_self_attention', 'the queries windowed and the keys not: the band transposed'): 'generic',
              ('first_run', '07_why_self_attention', "the mask from query 0's window (arange(-w, w + 1) < 0) for every query"): 'generic',
              ('first_run', '07_why_self_attention', 'a loop over the offsets summing exp(score) without the max: overflows for large scores'): 'misleading',
              ('first_run', '07_why_self_attention', 'unfold without padding: the first and last w queries output 0'): 'misleading',
          },
           {('06_model', 'tgt_vocab left at its default (37000): only the source vocabulary 16K')}),   # tie_weights hangs the 16K source matrix on the target embedding and the output layer: the model counted is the shared-16K one
    '30': ('thirtieth', 'blind_answers_30_set', {
              ('first_run', '08_data', 'a new list built with the loop bound len(syms) - 1: the last symbol dropped when it is not merged'): 'misleading',
              ('first_run', '08_data', "segment keyed by a merge's rank, GPT-2 style, but the rank taken from a dict built once (a default argument): stale for other merges"): 'generic',
              ('first_run', '09_training', 'precedence: d_model ** -1/2 is 1/(2 d_model)'): 'misleading',
              ('first_run', '09_training', 'the factor d_model ** -0.5 inside the min, on the decay branch only'): 'misleading',
              ('first_run', '09_training', 'a cache keyed by the step alone (a default dict argument): another d_model or warm-up at a cached step gets the old rate'): 'misleading',
              ('first_run', '09_training', 'V from axis 1 (logits.shape[1]): right for 2-d logits only'): 'generic',
              ('first_run', '09_training', 'the reference mass added by q[..., target] += 1 - eps (advanced indexing: every row gets every target)'): 'generic',
              ('first_run', '10_decoding', 'scatter with a (1, 2) index: PAD and BOS forbidden in the first row only'): 'misleading',
              ('first_run', '10_decoding', 'a source mask of (B, 1, S) by hand: it broadcasts over the heads, not the batch (right for a batch of one)'): 'generic',
              ('first_run', '10_decoding', 'the source mask from pad_mask(ys), the prefix, in an encode/decode by hand'): 'generic',
              ('first_run', '10_decoding', "each row's last position picked with logits[:, idx] (a (B, B) pick, not one per row)"): 'generic',
              ('first_run', '10_decoding', 'argmax first, the second best when it is PAD or BOS: wrong when PAD and BOS are the two best'): 'generic',
              ('first_run', '10_decoding', 'index_fill on axis 0: rows PAD_ID and BOS_ID of the batch forbidden, not the tokens'): 'generic',
          },
           set()),
    '31': ('thirty-first', 'blind_answers_31_set', {
              ('first_run', '11_results', 'the brevity penalty inside the geometric mean (its log added to the four logs, all divided by 4)'): 'generic',
              ('first_run', '11_results', "each distinct hypothesis n-gram credited with the reference's count (not the smaller of the two)"): 'misleading',
              ('first_run', '11_results', 'Counter | (the larger count) for the clip, not &'): 'misleading',
              ('first_run', '11_results', 'n-grams built with zip(ws, ws[n - 1:]): the first and last word of each window only (skip-grams)'): 'misleading',
              ('first_run', '11_results', "words found with re.findall(r'\\w+'): punctuation dropped"): 'misleading',
              ('first_run', '11_results', 'the counts kept in a default list between calls (a second corpus adds to the first)'): 'misleading',
              ('first_run', '11_results', 'one counting lambda per order built in a loop: late binding, every order counts 4-grams'): 'generic',
              ('first_run', '11_results', 'lengths counted with an end-of-sentence token each (len + 1, a fairseq habit)'): 'generic',
              ('first_run', '11_results', 'n-grams as non-overlapping chunks (range(0, len, n))'): 'generic',
              ('first_run', '11_results', 'r // c in the brevity penalty: integer division'): 'misleading',
              ('first_run', '12_variations', "the difference relative to base's BLEU (in percent) compared with the absolute noise"): 'misleading',
              ('first_run', '12_variations', 'the last head missed: range(w.shape[0] - 1)'): 'generic',
              ('first_run', '12_variations', "the argmax of the whole block of rows, flattened, taken modulo n_k: one row's largest weight"): 'generic',
              ('first_run', '12_variations', 'min(1, h // 8) for "at least one"'): 'generic',
              ('first_run', '12_variations', "the base's own h in row (A) too"): 'generic',
              ('first_run', '13_parsing', 'the label kept in a global: the children overwrite it before the brackets are written'): 'generic',
              ('first_run', '13_parsing', 'the last sentence left out: range(len(counts) - 1)'): 'misleading',
              ('first_run', '14_since_2017', 'computed in float16 and cast back'): 'generic',
              ('first_run', '14_since_2017', 'eps added to the output, not under the root'): 'generic',
              ('first_run', '14_since_2017', 'sin(m) * theta_i and cos(m) * theta_i, not sin(m * theta_i)'): 'generic',
              ('first_run', '14_since_2017', 'the /d outside the power: theta_i = 10000^(-2i) / d'): 'misleading',
              ('first_run', '14_since_2017', 'pairs counted from 1: theta_i = 10000^(-2(i + 1)/d)'): 'generic',
              ('first_run', '14_since_2017', 'group i sliced from head i, not i * h/g: overlapping groups'): 'generic',
              ('first_run', '14_since_2017', 'batch and head axes flattened together before grouping (right for B = 1)'): 'misleading',
              ('first_run', '14_since_2017', 'unfold(1, h/g, 1): the first g sliding windows (step 1), overlapping'): 'generic',
           },
           set()),
    '32': ('thirty-second', 'blind_answers_32_set', {
              ('first_run', '00_core', 'the width len(max(seqs)): the lexicographically largest list, not the longest'): 'generic',
              ('first_run', '00_core', 'a batch of one returned as its 1-d row'): 'misleading',
              ('first_run', '00_core', 'pad_id keyword-only (def pad_batch(seqs, *, pad_id=PAD_ID))'): 'generic',
              ('first_run', '00_core', 'the width of the last sentence (input assumed sorted by length, shortest first)'): 'generic',
              ('first_run', '01_attention', 'cached by n: a second call with another r gets the first mask'): 'misleading',
              ('first_run', '02_multihead', 'forward(x, mask=None, mem=None): the arguments in another order'): 'generic',
              ('first_run', '03_ffn', 'the ReLU written into the weights: w_1 clamped at zero'): 'generic',
              ('first_run', '03_ffn', 'copied into parameters, then reset_parameters() called on each Linear'): 'generic',
          },
           set()),
    '33': ('thirty-third', 'blind_answers_33_set', {
              ('first_run', '04_embeddings', 'the padding row zeroed without no_grad: an in-place write on a leaf that requires grad'): 'generic',
              ('first_run', '04_embeddings', "fairseq's pad 1 as the default pad_id"): 'generic',
              ('first_run', '04_embeddings', 'index_select(0, tokens): it takes a 1-d index only'): 'generic',
              ('first_run', '04_embeddings', "nn.Embedding.from_pretrained(self.E, freeze=False) in forward: the gradient goes to the new module's parameter, not E"): 'misleading',
              ('first_run', '04_embeddings', 'the pad mask (B, n) without its feature axis in torch.where'): 'generic',
              ('first_run', '05_positional_encoding', '10000 ** two_i / d_model: precedence'): 'generic',
              ('first_run', '05_positional_encoding', 'the exponent over d_model - 1'): 'misleading',
              ('first_run', '05_positional_encoding', '__init__(K, h): the arguments the other way'): 'generic',
              ('first_run', '05_positional_encoding', 'the positions clamped to K before the subtraction, not the offset'): 'generic',
              ('first_run', '06_model', 'nn.Dropout built inside forward: always in training mode'): 'generic',
              ('first_run', '07_why_self_attention', 'w at least 1 (max(r // 2, 1)): r = 1 attends to neighbours'): 'misleading',
              ('first_run', '07_why_self_attention', 'windows by gather with the indices clamped to [0, n - 1]: the end keys repeated, no mask'): 'generic',
              ('first_run', '07_why_self_attention', "einsum with another letter for the windows' position axis: every window summed"): 'misleading',
              ('first_run', '07_why_self_attention', 'w capped at n // 2: a window wider than the sequence cut'): 'generic',
           },
           set()),
    '34': ('thirty-fourth', 'blind_answers_34_set', {
              ('first_run', '08_data', "pairs counted with str.count on the space-joined word: overlapping occurrences ('a a a') counted once"): 'generic',
              ('first_run', '08_data', 'segment: the merges applied longest merged symbol first, not in the order learnt'): 'misleading',
              ('first_run', '08_data', 'the words sorted before pairing them with the counts (zip(sorted(words), counts.values())): counts attached to the wrong words'): 'generic',
              ('first_run', '08_data', 'segment: each merge tried once as the scan meets it, one pass left to right over the word (a merge that only becomes possible later missed)'): 'misleading',
              ('first_run', '09_training', 'the decay measured from the peak: (step - warmup) ** -0.5 after the warm-up'): 'generic',
              ('first_run', '09_training', 'the warm-up counted from step + 1 (0-based steps), the decay from step'): 'misleading',
              ('first_run', '09_training', 'the uniform term averaged over every position, pads included'): 'generic',
              ('first_run', '09_training', 'the mean rebuilt with torch.tensor from a list of floats: no gradient'): 'generic',
              ('first_run', '10_decoding', 'the last batch row (logits[-1]) taken, not the last position'): 'generic',
              ('first_run', '10_decoding', 'the source pad mask inverted (src == PAD_ID)'): 'generic',
              ('first_run', '10_decoding', "each row's whole greedy_decode run and its token at position t - 1 taken: the prefix ys ignored"): 'generic',
           },
           set()),
    '35': ('thirty-fifth', 'blind_answers_35_set', {
              ('first_run', '11_results', 'the exp divided by 4 (precedence): exp(sum of logs) / 4'): 'misleading',
              ('first_run', '11_results', 'the brevity penalty from the shorter of c and r: exp(1 - max / min) always'): 'misleading',
              ('first_run', '11_results', 'the brevity penalty squared (applied inside and outside)'): 'generic',
              ('first_run', '12_variations', "base's BLEU the best of its seed runs"): 'misleading',
              ('first_run', '12_variations', "the noise measured from the seeds' mean, not from the record 'base'"): 'misleading',
              ('first_run', '13_parsing', 'a phrase of POS nodes only written as its bare words (base NPs flattened)'): 'misleading',
              ('first_run', '13_parsing', 'the children visited right to left'): 'generic',
              ('first_run', '13_parsing', 'F1 from the sentences summed twice: 2m / (g + t) of the mean counts (divided by the number of sentences)'): 'misleading',
              ('first_run', '14_since_2017', 'eps hard-coded, the argument ignored'): 'generic',
              ('first_run', '14_since_2017', 'the gain applied per row (g[:, None])'): 'generic',
              ('first_run', '14_since_2017', 'the view with n and the heads swapped: (B, g, n, h/g, d)'): 'generic',
              ('first_run', '14_since_2017', 'a batch of one assumed (k[0])'): 'generic',
           },
           {('12_variations', "variants whose id differs from 'base' (a seed run of id 'base-seed1' counted as a variant)"),
            ('13_parsing', 'a list [p, r, f], not a tuple'),
            ('13_parsing', 'NumPy float64 figures (np.sum over axis 0)')}),   # a seed run never differs from base by more than the spread; a list or np.float64s unpack as the tuple of floats: no mistake
    '40': ('fortieth', 'blind_answers_40_set', {
        ('first_run', '07_why_self_attention', 'the keys padded with -inf (value=-inf) to give the pad rows a -inf score'): 'generic',
        ('first_run', '12_variations', 'row (A) changes h alone: each head keeps its size'): 'generic',
        }, set()),
    '41': ('forty-first', 'blind_answers_41_set', {
        }, {('12_variations', "base.get('d_k', d // h) for base.get('d_k') or d // h (left out: no PRESETS entry holds d_k=None)")}),
    '39': ('thirty-ninth', 'blind_answers_39_set', {
              ('first_run', '11_results', "n-gram windows taken at every start (range(len(ws))): the short tails at a sentence's end counted as n-grams"): 'generic',
              ('first_run', '11_results', "each sentence's n-gram total floored at 1 (max(len - n + 1, 1)): a hypothesis shorter than n adds a phantom n-gram"): 'misleading',
              ('first_run', '11_results', 'max(1, exp(1 - r/c)) for min: short outputs never penalised, long ones rewarded'): 'misleading',
              ('first_run', '11_results', 'precisions in percent and the score times 100 again (0 to 10,000)'): 'generic',
              ('first_run', '11_results', 'orders 1 to 5 (range(1, 6)), the mean over five'): 'misleading',
              ('first_run', '11_results', "matches clipped by a substring count in the reference string (str.count): 'a' found inside 'man'"): 'generic',
              ('first_run', '12_variations', "base found as the base run of seed 0 (r['seed'], a field the records need not carry), not by its id"): 'generic',
              ('first_run', '12_variations', "each variant compared with the base run of its own seed (the table's paired delta), not with 'base'"): 'misleading',
              ('first_run', '12_variations', "each variant compared with its nearest base run, not with the record 'base'"): 'misleading',
              ('first_run', '12_variations', "the base record removed from the caller's list (recs.remove)"): 'generic',
              ('first_run', '12_variations', 'base and noise computed at the first call and kept in a global: a second table reuses them'): 'misleading',
              ('first_run', '12_variations', 'the complement: the variants within the noise (<=) returned'): 'generic',
              ('first_run', '12_variations', "range(1, h) indexing w[h]: head h+1's answer labelled h, head 1 never read"): 'generic',
              ('first_run', '12_variations', "a batch axis assumed (attention_maps' (B, h, n_q, n_k)): w[0] taken"): 'misleading',
              ('first_run', '12_variations', 'all() over every head at once (no axis): every head or none'): 'generic',
              ('first_run', '12_variations', 'a head listed once per row that looks at col (any row, repeated)'): 'generic',
              ('first_run', '12_variations', "base['d_k'] read directly: a preset without d_k fails"): 'generic',
              ('first_run', '12_variations', "one dict reused for every entry of a row: each shows the row's last overrides"): 'generic',
              ('first_run', '12_variations', "row (A) named from the base's h: its four entries under one key"): 'generic',
              ('first_run', '12_variations', "the library's table3_variants returned whole: base and rows C to E too"): 'misleading',
              ('first_run', '13_parsing', "only -SBJ removed (label.replace('-SBJ', '')): right on John's tree alone"): 'generic',
              ('first_run', '13_parsing', "one level of recursion: a child phrase's own phrases written as bare words"): 'misleading',
              ('first_run', '13_parsing', "a bare '(' opening each phrase, the label only on the closing bracket"): 'misleading',
              ('first_run', '13_parsing', 'the tuple of fractions times 100 (a NumPy habit): the three repeated 100 times'): 'generic',
              ('first_run', '13_parsing', "the sentences' tuples added with + (concatenated, not summed element-wise)"): 'generic',
              ('first_run', '14_since_2017', 'eps a floor on the mean square (clamp_min), not added under the root'): 'generic',
              ('first_run', '14_since_2017', 'computed in float64 (a.double()) and returned in float64'): 'generic',
              ('first_run', '14_since_2017', "d hard-coded as 8 (the notebook's LayerNorm(8)): sum of squares / 8"): 'generic',
              ('first_run', '14_since_2017', 'the gain inside the mean square (a weighted mean), not applied to the output'): 'generic',
              ('first_run', '14_since_2017', 'rsqrt read as sqrt: a multiplied by sqrt(mean + eps)'): 'generic',
              ('first_run', '14_since_2017', 'm left out: each pair turned by theta_i, as if at position 1'): 'misleading',
              ('first_run', '14_since_2017', 'each pair read backwards (x1 = q[1::2], x2 = q[0::2]), written back in order'): 'generic',
              ('first_run', '14_since_2017', "the cos/sin table cached by d alone: the first call's position reused"): 'misleading',
              ('first_run', '14_since_2017', "05's sinusoids added (q + PE_m), not a rotation"): 'generic',
              ('first_run', '14_since_2017', "the paper's ceil(i g / h) - 1 on heads counted from 0: head 0 wraps to the last group"): 'generic',
              ('first_run', '14_since_2017', 'each group head repeated along the batch axis (repeat_interleave dim=0)'): 'generic',
              ('first_run', '14_since_2017', 'each group head repeated along the positions (repeat_interleave dim=2)'): 'generic',
              ('first_run', '14_since_2017', 'len(k) for the number of heads: the batch size'): 'generic',
              ('first_run', '14_since_2017', 'h / g (true division) in the shape: a float size'): 'generic',
           },
           {('14_since_2017', "computed in float64 and returned so (no cast back to q's dtype)")}),   # check_rotate accepts a float64 rotation of a float32 query on purpose (it loses nothing): a right answer there
    '36': ('thirty-sixth', 'blind_answers_36_set', {
              ('first_run', '00_core', "the rows gathered in a mutable default list: a second call returns the first call's rows too"): 'misleading',
              ('first_run', '00_core', 'the sentences as separate arguments (def pad_batch(*seqs, pad_id=PAD_ID))'): 'misleading',
              ('first_run', '00_core', 'the width from sentences 1 .. B-1 (a 1-based habit): a longest first sentence cut'): 'misleading',
              ('first_run', '00_core', 'np.resize to the width: a short sentence filled by repeating its own ids, not pad_id'): 'misleading',
              ('first_run', '00_core', 'a bracket closed early, s + [pad_id * (n - len(s))]: one item appended, worth pad_id times the gap'): 'generic',
              ('first_run', '01_attention', 'the zero fill keyed on mask.all, not mask.any: every row with a masked key zeroed'): 'generic',
              ('first_run', '01_attention', 'the output taken before the zero fill: a fully masked query gets NaN outputs, zero weights'): 'generic',
              ('first_run', '01_attention', 'cosine attention: q and k L2-normalised (Swin v2), no 1/sqrt(d_k)'): 'misleading',
              ('first_run', '01_attention', 'sqrt(d_k) taken as a float32 tensor: float64 scores divided by a rounded scale'): 'misleading',
              ('first_run', '01_attention', 'mask=None replaced by torch.ones_like(scores): a float mask that ~ refuses'): 'generic',
              ('first_run', '01_attention', 'the mask inverted with 1 - mask (a bool tensor refuses -)'): 'misleading',
              ('first_run', '01_attention', 'scores against the values (q v^T), the keys unused'): 'generic',
              ('first_run', '01_attention', 'the scores floor-divided (//) by sqrt(d_k)'): 'misleading',
              ('first_run', '01_attention', 'rows filled by slices m[i, i - w : i + w + 1]: a negative start wraps, the first rows empty'): 'generic',
              ('first_run', '01_attention', 'the left end clamped at 1, not 0 (a 1-based habit): key 0 seen by no query but itself'): 'generic',
              ('first_run', '01_attention', "a global first token (Longformer's): position 0 sees and is seen by every position"): 'generic',
              ('first_run', '01_attention', "the two bounds joined with an unbracketed &: Python's precedence makes a chained comparison"): 'generic',
              ('first_run', '02_multihead', 'merge loops to h - 1 (a C-style bound): the last head left out'): 'generic',
              ('first_run', '02_multihead', 'split slices i*d : (i+1)*d - 1 (the inclusive end read as a stop): each head one feature short'): 'generic',
              ('first_run', '02_multihead', 'merge casts to float32 (.float())'): 'generic',
              ('first_run', '02_multihead', "split pre-scales the heads by d ** -0.5 (fairseq's query scaling)"): 'generic',
              ('first_run', '02_multihead', "merge transposes the caller's tensor in place (transpose_)"): 'generic',
              ('first_run', '02_multihead', 'load_from a classmethod that builds and returns a new LoopMHA, leaving self as it was'): 'misleading',
              ('first_run', '02_multihead', 'a ReLU after W^O (every layer given an activation)'): 'generic',
              ('first_run', '02_multihead', "the residual added inside the layer (x + W^O(...)), the sub-layer's Add taken in"): 'generic',
              ('first_run', '02_multihead', "a LayerNorm after W^O (the sub-layer's Norm taken into the layer)"): 'generic',
              ('first_run', '02_multihead', "forward(query, key, value, mask), the Annotated Transformer's signature"): 'generic',
              ('first_run', '02_multihead', 'mask=None not handled: mask[:, 0] on None'): 'generic',
              ('first_run', '02_multihead', 'heads.append outside the loop (its indent lost): only the last head kept'): 'generic',
              ('first_run', '02_multihead', "the arguments (h, d_model), the Annotated Transformer's MultiHeadedAttention order"): 'generic',
              ('first_run', '02_multihead', "head i's bias the single entry W.bias[i], broadcast over its d_k"): 'misleading',
              ('first_run', '01_attention', 'mask without its default (def my_attention(q, k, v, mask))'): 'generic',
              ('first_run', '02_multihead', 'split with the head size hd / h, a float: view refuses it'): 'generic',
              ('first_run', '02_multihead', 'super().__init__() called after the layers are assigned'): 'generic',
              ('first_run', '03_ffn', 'every state_dict entry sliced [..., 0], the biases too: load_state_dict refuses the sizes'): 'generic',
              ('first_run', '03_ffn', "the input stack frozen to copy it (conv.requires_grad_(False)): the caller's convolutions no longer learn"): 'generic',
           }, set()),
    '37': ('thirty-seventh', 'blind_answers_37_set', {
              ('first_run', '04_embeddings', 'nn.init.normal_(E, d_model ** -0.5): the std passed positionally, as the mean'): 'generic',
              ('first_run', '04_embeddings', 'torch.rand for torch.randn: uniform on [0, d_model^-0.5), every entry positive'): 'generic',
              ('first_run', '04_embeddings', "init std sqrt(d_model): the exponent's sign lost (d_model ** 0.5)"): 'generic',
              ('first_run', '04_embeddings', "init std vocab ** -0.5: the table's first size, not d_model"): 'generic',
              ('first_run', '04_embeddings', 'Kaiming-normal init (nn.init.kaiming_normal_): std sqrt(2 / d_model)'): 'generic',
              ('first_run', '04_embeddings', 'padding found as all-zero embeddings, not by the id: a non-zero pad row gets a gradient'): 'generic',
              ('first_run', '05_positional_encoding', '10000 ** 2i taken in int64 first, then the d_model-th root: it overflows from 2i = 6 on'): 'misleading',
              ('first_run', '05_positional_encoding', "pos / 10000 ** 2*i / d_model: the exponent's parentheses lost"): 'misleading',
              ('first_run', '05_positional_encoding', 'the exponent divided by n, not d_model (the two sizes confused)'): 'misleading',
              ('first_run', '05_positional_encoding', 'ln(10000) hard-coded as 9.2 in the exp form: every frequency slightly off'): 'generic',
              ('first_run', '05_positional_encoding', 'positions normalised to [0, 1) (pos / n)'): 'generic',
              ('first_run', '05_positional_encoding', 'copy-paste: the sine in the odd dimensions too (no cosine at all)'): 'generic',
              ('first_run', '05_positional_encoding', "the bias negated (ALiBi's subtracted penalty): -table[...]"): 'generic',
              ('first_run', '05_positional_encoding', 'the key positions counted from 1 (arange(1, n_k + 1)): every offset one too large'): 'generic',
              ('first_run', '05_positional_encoding', 'offsets beyond K given a zero bias instead of the clipped edge row'): 'generic',
              ('first_run', '06_model', 'the norm and the dropout kept in a plain Python list: not registered (no parameters; .eval() never reaches the dropout)'): 'misleading',
              ('first_run', '06_model', 'locked dropout (AWD-LSTM): one mask per sentence, shared by all its positions'): 'misleading',
              ('first_run', '06_model', "the LayerNorm built lazily at the first forward (Keras's build): no parameters until then"): 'misleading',
              ('first_run', '06_model', "nn.LayerNorm(512): the base model's width hard-coded"): 'generic',
              ('first_run', '06_model', 'the FFN sub-layers without their residual: norm(ffn(x))'): 'generic',
              ('first_run', '06_model', 'sqrt(d_model) applied after the positions are added: (E x + PE) * sqrt(d_model)'): 'generic',
              ('first_run', '06_model', "the logits multiplied by sqrt(d_model): §3.4's embedding scale applied to the tied output too"): 'misleading',
              ('first_run', '06_model', 'the causal part strictly lower (tril(-1)): no position attends to itself, position 0 to nothing'): 'generic',
              ('first_run', '06_model', "the logits at the target's padded positions zeroed"): 'generic',
              ('first_run', '06_model', 'F.dropout(x, 0.1) on the embedding sums (§5.4): training=True by default, so it drops in eval'): 'misleading',
              ('first_run', '06_model', "the cross-attention sub-layer calls l.self_attn (copy-paste): the self-attention's weights on the memory"): 'generic',
              ('first_run', '06_model', "counted by hand without the linear layers' biases"): 'generic',
              ('first_run', '06_model', 'each decoder layer counted as an encoder layer: the cross-attention and its LayerNorm left out'): 'generic',
              ('first_run', '06_model', 'the FFN counted as one matrix: W_2 and b_2 left out'): 'misleading',
              ('first_run', '06_model', 'attention counted with three projections: W^O left out'): 'misleading',
              ('first_run', '06_model', 'each LayerNorm counted with its gain only (d, not 2 d)'): 'generic',
              ('first_run', '06_model', "'4-layer' read as the encoder: 4 encoder layers, the decoder's 6 kept"): 'generic',
              ('first_run', '07_why_self_attention', 'the padded rows marked with valid[:w] = valid[-w:] = False: for r < 2 (w = 0) [-0:] marks every row'): 'misleading',
              ('first_run', '07_why_self_attention', 'log_softmax for softmax: log-weights multiply the values'): 'misleading',
              ('first_run', '07_why_self_attention', 'F.dropout(weights, 0.1) as attention does: training=True by default, random outputs'): 'misleading',
              ('first_run', '07_why_self_attention', 'keys shifted by each offset with slicing and zero rows: breaks when r // 2 > n'): 'generic',
              ('first_run', '07_why_self_attention', 'squeeze() after the batched matmul: a batch or head of one (or r < 2) loses its axis'): 'generic',
              ('first_run', '07_why_self_attention', 'the edge mask cached at the first call (a global): stale for a later n or r'): 'generic',
           },
           {('04_embeddings', "the parameter named weight (nn.Embedding's name), not E")}),   # its values and gradients are a right answer's: no mistake
    '38': ('thirty-eighth', 'blind_answers_38_set', {
              ('first_run', '08_data', "Sennrich's regex with \\b word boundaries instead of whitespace look-arounds: a pair with '</w>' never merges (the same merge recorded again and again)"): 'generic',
              ('first_run', '08_data', "one Counter made before the loop: each round adds its counts to the last rounds', so a merged pair is picked again"): 'misleading',
              ('first_run', '08_data', "a pair's count assigned (=), not added (+=): each pair gets the count of the last word that holds it"): 'generic',
              ('first_run', '08_data', 'the new symbol kept as the pair itself (syms[i:i + 2] = [pair]), not the joined string'): 'generic',
              ('first_run', '08_data', "merges=[] as a default argument: a second call continues the first call's list"): 'misleading',
              ('first_run', '08_data', "word_counts' keys read as Sennrich's spaced words ('l o w </w>'): split on spaces, each word one symbol"): 'misleading',
              ('first_run', '08_data', 'merges collected in a set (no merge twice): the order learnt lost'): 'generic',
              ('first_run', '08_data', 'the merges prepended (merges.insert(0, best)): the list newest first'): 'generic',
              ('first_run', '08_data', 'a for loop over range(len(syms) - 1) while the list shrinks under it: IndexError once a merge is made'): 'generic',
              ('first_run', '08_data', 'for w, c in word_counts: without .items(), each key unpacked (ValueError)'): 'generic',
              ('first_run', '08_data', 'symbols compared with is, not ==: a merged symbol made in another word is another object'): 'misleading',
              ('first_run', '08_data', "the count's name c reused for the second symbol (for a, c in zip(...)): pairs[a, c] += c adds a string"): 'generic',
              ('first_run', '09_training', 'the parenthesis closed after step: min(step ** -0.5, step) * warmup ** -1.5'): 'generic',
              ('first_run', '09_training', 'math.isqrt (the integer square root) for sqrt(d_model)'): 'generic',
              ('first_run', '09_training', 'a count of its own calls kept in a global (scheduler.step() habit): the step argument ignored'): 'generic',
              ('first_run', '09_training', 'the peak factor (d_model warmup)^-0.5 put in front of the unnormalised min(step^-0.5, step / warmup)'): 'generic',
              ('first_run', '09_training', "q built in place on F.one_hot's long tensor (q *= 1 - eps): a dtype error"): 'generic',
              ('first_run', '09_training', "the model's p smoothed, not the target: -log((1 - eps) p_y + eps / V)"): 'generic',
              ('first_run', '09_training', 'the cross-entropy the other way round: -sum_i p_i log q_i'): 'generic',
              ('first_run', '09_training', 'the uniform part written from the raw logits, -mean_i z_i: its logsumexp left out'): 'generic',
              ('first_run', '09_training', "log-softmax by hand with the global max subtracted, not each row's: rows far below it underflow to -inf"): 'misleading',
              ('first_run', '09_training', 'log-softmax by hand without the max: exp overflows for logits above ~88'): 'misleading',
              ('first_run', '09_training', 'log(softmax + 1e-9), a Keras-style epsilon: -log p capped near 20.7 for confident logits'): 'generic',
              ('first_run', '09_training', 'the uniform part spread over the V - 1 tokens that are not pad (the pad column 0)'): 'generic',
              ('first_run', '09_training', 'the pad column of q zeroed, then q renormalised to sum to 1'): 'generic',
              ('first_run', '09_training', "loss[mask.nonzero()]: NumPy's tuple of indices, but torch's nonzero() is a (k, 2) tensor (whole rows picked)"): 'generic',
              ('first_run', '09_training', 'q cached by shape across calls (built once for the first targets of that shape)'): 'misleading',
              ('first_run', '09_training', "the scatter's 1 - eps made with full_like(target[..., None]): a long tensor"): 'generic',
              ('first_run', '10_decoding', '+inf for -inf (the sign lost): PAD always chosen'): 'generic',
              ('first_run', '10_decoding', "PAD's and BOS's columns dropped (logits[:, keep]) and the argmax not mapped back to ids"): 'generic',
              ('first_run', '10_decoding', "the source's EOS dropped (src[:, :-1], the target's teacher-forcing slice)"): 'generic',
              ('first_run', '10_decoding', 'a BOS put in front of the source too (the target convention)'): 'generic',
              ('first_run', '10_decoding', "the Annotated Transformer's subsequent_mask without its == 0: triu(ones), each position sees itself and the future, the last only itself"): 'generic',
              ('first_run', '10_decoding', "model.generator applied to decode's output, which is already logits (the Annotated Transformer's decode returns states)"): 'generic',
              ('first_run', '10_decoding', "the encoder's output kept in a global at the first call (the encoder runs once): a new source decoded against the first one's"): 'misleading',
              ('first_run', '10_decoding', "the encoder's output cached by the source's shape: another source of that shape gets the first's memory"): 'generic',
              ('first_run', '10_decoding', 'the last position read as len(ys) - 1: the batch size, not the prefix length'): 'generic',
              ('first_run', '10_decoding', 'logits[:, ys.shape[1]]: one past the last position'): 'generic',
              ('first_run', '10_decoding', 'the last position kept as (B, 1, V) (logits[:, -1:]): next_token_logits indexes its axis 1'): 'misleading',
              ('first_run', '10_decoding', 'the source encoded under tgt_mask(src): a causal source, each token sees only its past'): 'generic',
              ('first_run', '10_decoding', "inputs transposed to (length, batch), torch's nn.Transformer default (batch_first=False)"): 'misleading',
              ('first_run', '10_decoding', "the target mask cast to the source's dtype (.type_as(src)), as the Annotated Transformer's greedy_decode"): 'generic',
              ('first_run', '10_decoding', "Hugging Face's repetition_penalty 1.2 on the tokens already in the prefix"): 'misleading',
              ('first_run', '10_decoding', "the row's last token forbidden too (a no-repeat rule)"): 'generic',
              ('first_run', '10_decoding', "the prefix padded to the source's length (an RNN habit): the last position read is padding"): 'generic',
           },
           {('08_data', 'a pair matched by its joined string (syms[i] + syms[i + 1] == a + b): (ab, c) taken for (a, bc)'),
            ('08_data', 'pairs counted with the symbols joined by no space: the key a + b, so (ab, c) and (a, bc) share one count'),
            ('09_training', "the paper's argument names (step_num, d_model, warmup_steps): a call with warmup= fails")}),   # merges applied everywhere in the order learnt never leave (ab, c) beside (a, bc): no input tells them from the right answer; the schedule is called by position, so its arguments' names are the learner's
}
def verdict(table, a):
    if a['ok'] is None: return 'crashed'
    if a['ok']: return 'passed'
    return VERDICTS.get((table, a['notebook'], a['mistake']), 'named')

def tables(answers, table):
    rows = {}
    for a in answers: rows.setdefault(a['notebook'], dict.fromkeys(('answers', *KINDS), 0))
    for a in answers: rows[a['notebook']]['answers'] += 1; rows[a['notebook']][a[table]] += 1
    rows = dict(sorted(rows.items()))
    rows['all'] = {k: sum(r[k] for r in rows.values()) for k in ('answers', *KINDS)}
    return rows

def record(table, run_file):
    "Class the run's wrong answers into `table` of results/checker_answers.json[KEY] (the other table kept)."
    path = ROOT / 'results' / 'checker_answers.json'
    data, run = json.loads(path.read_text()), json.loads(Path(run_file).read_text())
    assert all(a['ok'] is True for a in run if a['mistake'] is None), 'a right answer failed'
    d = data.setdefault(KEY, {})
    old = {(a['notebook'], a['mistake']): a for part in (d, d.get('since_2017', {})) for a in part.get('answers', [])}
    wrong = [a for a in run if a['mistake'] is not None and (a['notebook'], a['mistake']) not in LEFT_OUT]
    answers = []
    for a in wrong:
        prev = old.get((a['notebook'], a['mistake']), {})
        row = dict(notebook=a['notebook'], exercise=a['exercise'], mistake=a['mistake'],
                   first_run=prev.get('first_run'), after=prev.get('after'), message=a['message'], first_message=prev.get('first_message'))
        row[table] = verdict(table, a)
        if table == 'first_run': row['first_message'] = a['message']; row['after'] = row['after'] or row['first_run']
        answers.append(row)
    paper = [a for a in answers if a['notebook'] != '14_since_2017']
    since = [a for a in answers if a['notebook'] == '14_since_2017']
    d['right_answers'] = sum(a['mistake'] is None and a['notebook'] != '14_since_2017' for a in run)
    d['first_run'], d['after'], d['answers'] = tables(paper, 'first_run'), tables(paper, 'after'), paper
    if any(a['notebook'] == '14_since_2017' for a in run):   # a set for some notebooks only (17: 00 to 07) has no such part
        d['since_2017'] = dict(right_answers=sum(a['mistake'] is None and a['notebook'] == '14_since_2017' for a in run),
                               first_run=tables(since, 'first_run'), after=tables(since, 'after'), answers=since)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + '\n')

if __name__ == '__main__':
    if not sys.argv[1:] or sys.argv[1] not in SETS: sys.exit(f"usage: blind_answers.py SET [--record first_run|after FILE | NN ...]; SET one of {', '.join(SETS)}")
    KEY, SET_MODULE, VERDICTS, LEFT_OUT = SETS[sys.argv[1]]
    if sys.argv[2:3] == ['--record']: record(sys.argv[3], sys.argv[4]); sys.exit()
    ANSWERS = importlib.import_module(SET_MODULE).ANSWERS   # (notebook, exercise, mistake or None for the right answer, code)
    os.chdir(ROOT / 'nbs')   # the notebook's folder: its checks read ../results
    only = set(sys.argv[2:])
    rows, bases = [], {}
    for nb, exercise, mistake, code in ANSWERS:
        if only and nb[:2] not in only: continue
        if nb not in bases:
            base = {}
            with contextlib.redirect_stdout(io.StringIO()):
                exec(COMMON + (PRELUDE[nb] or notebook_prelude(nb)), base)
            bases[nb] = base
        ok, msg = run(nb, exercise, code, bases[nb])
        rows.append(dict(notebook=nb, exercise=exercise, mistake=mistake, ok=ok, message=msg))
        print(f'{nb} {exercise} | {mistake} | {ok} | {msg}', file=sys.stderr)
    json.dump(rows, sys.stdout, indent=1)

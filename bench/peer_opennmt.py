#!/usr/bin/env python
"""The OpenNMT-py side of `bench/bench_peers.py --peer opennmt`. It runs in OpenNMT-py's own virtual environment
(never in ours: OpenNMT-py 3.5.1 pins torch<2.3), so it imports nothing from transformer_nb.

    python peer_opennmt.py convert OURS.pt ONMT.pt   # port a pre-LN transformer_nb checkpoint's weights into OpenNMT-py
    python peer_opennmt.py serve ONMT.pt             # answer JSON requests on stdin, one per line (see `serve`)
    python peer_opennmt.py train ONMT.pt             # training updates on batches sent on stdin (see `train`)

The port is exact: OpenNMT-py 3.5.1's Transformer is pre-LN (a LayerNorm before each sub-layer and one at the end of
each stack), with interleaved sinusoids 10000^(-2i/d_model) (`SinusoidalInterleaved`), embeddings scaled by
sqrt(d_model), biases on the Q/K/V/output projections (`-add_qkvbias`) and on the FFN (`-add_ffnbias`). With the same
LayerNorm epsilon (1e-5) it computes the function our `norm_first=True` model computes, so both decoders search the same
distribution and their greedy outputs agree (the benchmark counts how many sentences agree). OpenNMT-py has no
post-LN Transformer, which is why the benchmark's peer model is a pre-LN `mini`.

Setup, once (a few minutes from PyPI; the environment lives outside the repository, here beside it):

    python -m venv ../onmt-venv
    ../onmt-venv/bin/pip install OpenNMT-py==3.5.1 "numpy<2" sentencepiece
    export ONMT_PYTHON=$PWD/../onmt-venv/bin/python      # or pass --peer-python to bench_peers.py

OpenNMT-py 3.5.1 pins its own torch (2.2.x), which was built against NumPy 1 (hence "numpy<2"); sentencepiece reads
our tokenizer for the vocabulary. bench_peers.py records the peer's torch version with its figures (`opennmt_torch`).
To run OpenNMT-py on the same torch as ours instead, so that both sides use the same PyTorch kernels, install it
without its pins:

    python -m venv ../onmt-venv-sametorch
    ../onmt-venv-sametorch/bin/pip install torch==VERSION            # the torch of our environment (python -c "import torch; print(torch.__version__)")
    ../onmt-venv-sametorch/bin/pip install --no-deps OpenNMT-py==3.5.1
    ../onmt-venv-sametorch/bin/pip install configargparse pyyaml pyonmttok six rapidfuzz pyahocorasick sacrebleu sentencepiece numpy

OpenNMT-py then imports spacy and fasttext at start-up, for transforms this benchmark does not use; bench_peers.py puts
one-line stand-ins for those two on the peer's path when they are missing (`write_stubs` there) rather than
installing them. Loading its own checkpoints under torch >= 2.6 needs TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1, which
bench_peers.py sets.

`convert` reads OURS.pt with `torch.load(weights_only=True)`. The torch OpenNMT-py pins cannot read a transformer_nb
checkpoint that way (it holds the tokenizer as Python bytes), so bench_peers.py hands it a copy with just the config,
the weights and the tokenizer as a uint8 tensor (`portable_checkpoint` there); a full checkpoint works with torch >= 2.4.
"""
import json, sys, time
from pathlib import Path

ONMT_SPECIALS = {0: '<blank>', 1: '<unk>', 2: '<s>', 3: '</s>'}   # transformer_nb's pad/unk/bos/eos ids -> OpenNMT tokens

def train_args(cfg:dict, train:dict|None=None) -> list[str]:
    """OpenNMT-py training options that build the architecture of our config `cfg`; with `train` (our dropouts, label
    smoothing, warm-up and learning-rate scale), those of training it as we do: Adam (0.9, 0.98, 1e-9), the noam schedule
    (§5.3), no gradient clipping, the loss divided by the target tokens."""
    args = ['-share_vocab', '-model_dtype', 'fp32',
            '-encoder_type', 'transformer', '-decoder_type', 'transformer', '-enc_layers', str(cfg['N']),
            '-dec_layers', str(cfg['N']), '-hidden_size', str(cfg['d_model']), '-word_vec_size', str(cfg['d_model']),
            '-transformer_ff', str(cfg['d_ff']), '-heads', str(cfg['h']), '-position_encoding',
            '-position_encoding_type', 'SinusoidalInterleaved', '-add_qkvbias', '-add_ffnbias', '-norm_eps', '1e-5',
            '-share_embeddings', '-share_decoder_embeddings', '-dropout', '0.0', '-attention_dropout', '0.0']
    if train:
        if train['p_ffn'] != train['p_drop']: raise ValueError("OpenNMT-py uses one dropout after the ReLU and on each sub-layer: p_ffn must equal p_drop")
        args += ['-dropout', str(train['p_drop']), '-attention_dropout', str(train['p_attn']),
                 '-label_smoothing', str(train['eps_ls']), '-optim', 'adam', '-adam_beta1', '0.9', '-adam_beta2', '0.98',
                 '-learning_rate', str(train['lr_scale']), '-decay_method', 'noam', '-warmup_steps', str(train['warmup']),
                 '-max_grad_norm', '0', '-normalization', 'tokens', '-batch_type', 'tokens', '-accum_count', '1']
    return args

def model_opts(cfg:dict, train:dict|None=None):
    "The options of `train_args`, parsed and validated as `onmt_train` does."
    import onmt.opts as opts
    from onmt.utils.parse import ArgumentParser
    p = ArgumentParser(); opts.train_opts(p)
    o = p.parse_known_args(['-config', '', '-data', '{}', '-src_vocab', 'unused', *train_args(cfg, train)])[0]
    ArgumentParser.update_model_opts(o); ArgumentParser.validate_model_opts(o)
    return o

def check_portable(cfg:dict, path):
    "Raise ValueError unless OpenNMT-py 3.5.1 can express the config exactly."
    why = []
    if not cfg.get('norm_first'): why.append("it is post-LN (OpenNMT-py 3.5.1's Transformer is pre-LN only)")
    if cfg.get('pos', 'sinusoidal') != 'sinusoidal': why.append(f"pos={cfg['pos']!r} (ported: sinusoidal only)")
    if cfg.get('tie', 'all') != 'all': why.append(f"tie={cfg['tie']!r} (ported: the shared vocabulary, tie='all')")
    if cfg['d_k'] * cfg['h'] != cfg['d_model'] or cfg['d_v'] != cfg['d_k']: why.append("d_k, d_v != d_model/h")
    if why: raise ValueError(f"{path}: cannot port to OpenNMT-py: {'; '.join(why)}")

def vocabs_of(sp):
    "OpenNMT-py's vocabularies for our SentencePiece model: the same pieces with the same ids (ours: pad, unk, bos, eos first)."
    import pyonmttok
    tokens = [ONMT_SPECIALS.get(i, sp.id_to_piece(i)) for i in range(sp.get_piece_size())]
    voc = pyonmttok.build_vocab_from_tokens(tokens)
    assert voc.ids_to_tokens == tokens, "pyonmttok reordered the vocabulary"
    return {'src': voc, 'tgt': voc, 'data_task': 'seq2seq', 'decoder_start_token': '<s>'}

def convert(ours, out):
    "Port our checkpoint `ours` (weights, config, SentencePiece vocabulary) into an OpenNMT-py checkpoint `out`."
    import torch, sentencepiece as spm
    from onmt.model_builder import build_base_model
    from onmt.inputters.inputter import vocabs_to_dict
    from transformer_nb.lib.checkpoints import upgrade_checkpoint
    ck = upgrade_checkpoint(torch.load(ours, map_location='cpu', weights_only=True))   # any format: 02's attention names
    cfg, sd, proto = ck['config'], ck['model'], ck['tokenizer']
    check_portable(cfg, ours)
    if isinstance(proto, torch.Tensor): proto = proto.numpy().tobytes()     # the portable copy: a uint8 tensor
    sp = spm.SentencePieceProcessor(model_proto=bytes(proto))
    vocabs = vocabs_of(sp)
    o = model_opts(cfg)
    m = build_base_model(o, vocabs)
    new = {}
    def mha(k, ours_k):
        for name, n in (('linear_query', 'q'), ('linear_keys', 'k'), ('linear_values', 'v'), ('final_linear', 'o')):
            new[f'{k}.{name}.weight'], new[f'{k}.{name}.bias'] = sd[f'{ours_k}.w_{n}.weight'], sd[f'{ours_k}.w_{n}.bias']
    def copy(k, ours_k):
        for p in ('weight', 'bias'): new[f'{k}.{p}'] = sd[f'{ours_k}.{p}']
    emb = sd['src_emb.lut.weight']
    for side in ('encoder', 'decoder'): new[f'{side}.embeddings.make_embedding.emb_luts.0.weight'] = emb
    for i in range(cfg['N']):
        e, oe = f'encoder.transformer.{i}', f'encoder.{i}'
        mha(f'{e}.self_attn', f'{oe}.self_attn'); copy(f'{e}.layer_norm', f'{oe}.sub.0.norm')
        copy(f'{e}.feed_forward.layer_norm', f'{oe}.sub.1.norm')
        copy(f'{e}.feed_forward.w_1', f'{oe}.ffn.w_1'); copy(f'{e}.feed_forward.w_2', f'{oe}.ffn.w_2')
        d, od = f'decoder.transformer_layers.{i}', f'decoder.{i}'
        mha(f'{d}.self_attn', f'{od}.self_attn'); copy(f'{d}.layer_norm_1', f'{od}.sub.0.norm')
        mha(f'{d}.context_attn', f'{od}.cross_attn'); copy(f'{d}.layer_norm_2', f'{od}.sub.1.norm')
        copy(f'{d}.feed_forward.layer_norm', f'{od}.sub.2.norm')
        copy(f'{d}.feed_forward.w_1', f'{od}.ffn.w_1'); copy(f'{d}.feed_forward.w_2', f'{od}.ffn.w_2')
    copy('encoder.layer_norm', 'enc_norm'); copy('decoder.layer_norm', 'dec_norm')
    target = m.state_dict()
    missing = [k for k in target if k not in new and not k.endswith('.pe.pe') and not k.startswith('generator')]
    if missing: raise ValueError(f"port incomplete, OpenNMT-py tensors not set: {missing[:5]}")
    for k, v in new.items():
        if tuple(target[k].shape) != tuple(v.shape): raise ValueError(f"{k}: shape {tuple(v.shape)} vs {tuple(target[k].shape)}")
    model_sd = {k: (new[k] if k in new else v).clone() for k, v in target.items() if not k.startswith('generator')}
    gen = {'weight': emb.clone(), 'bias': torch.zeros(emb.shape[0])}     # our output layer: tied, no bias
    torch.save({'model': model_sd, 'generator': gen, 'vocab': vocabs_to_dict(vocabs), 'opt': o, 'optim': None}, out)
    print(f"wrote {out}: OpenNMT-py {cfg['N']}+{cfg['N']} layers, d_model {cfg['d_model']}, vocab {sp.get_piece_size()}")

def engine(ckpt, beam:int, max_length:int, batch_size:int, batch_type:str):
    "An OpenNMT-py inference engine (what onmt_translate builds) with the paper's decoding settings."
    from onmt.inference_engine import InferenceEnginePY
    from onmt.opts import translate_opts
    from onmt.utils.parse import ArgumentParser
    p = ArgumentParser(); translate_opts(p)
    opt = p.parse_args(['-model', str(ckpt), '-src', 'unused', '-beam_size', str(beam), '-n_best', '1',
                        '-length_penalty', 'wu', '-alpha', '0.6', '-max_length', str(max_length), '-max_length_ratio', '0',
                        '-batch_size', str(batch_size), '-batch_type', batch_type, '-gpu', '-1', '-seed', '0',
                        '-log_file', '/dev/null', '-output', '/dev/null'])
    ArgumentParser.validate_translate_opts(opt); ArgumentParser._get_all_transform_translate(opt)
    ArgumentParser._validate_transforms_opts(opt); ArgumentParser.validate_translate_opts_dynamic(opt)
    return InferenceEnginePY(opt)

def serve(ckpt):
    """Requests (one JSON object per line on stdin): {"src": [space-separated pieces per sentence], "beam": k,
    "max_length": L, "batch_size": n, "batch_type": "tokens"|"sents", "threads": t}. Reply (one line on stdout):
    {"seconds": wall time of translating all of src, "hyps": [pieces per sentence] or null with "quiet": true}."""
    import logging, torch
    logging.disable(logging.CRITICAL)
    engines, out = {}, sys.stdout
    sys.stdout = sys.stderr                                # OpenNMT-py prints; keep the reply channel clean
    for line in sys.stdin:
        q = json.loads(line)
        torch.set_num_threads(q.get('threads', 1))
        key = (q['beam'], q['max_length'], q['batch_size'], q['batch_type'])
        if key not in engines: engines[key] = engine(ckpt, *key)
        t0 = time.perf_counter()
        _, preds = engines[key].infer_list(q['src'])
        dt = time.perf_counter() - t0
        out.write(json.dumps({'seconds': dt, 'hyps': None if q.get('quiet') else [p[0] for p in preds]}) + '\n')
        out.flush()

def train(ckpt):
    """Training updates as OpenNMT-py's trainer makes them (`Trainer._gradient_accumulation`: model, `LossCompute` with
    its label-smoothed cross-entropy and statistics, `Optimizer` with the noam schedule), from the weights of `ckpt`
    (made by `convert`). The first request (one JSON line on stdin): {"train": our training settings (see `model_opts`),
    "batches": [[src rows, tgt rows], ...] of padded ids}. Reply: {"params": n, "loss0": the mean smoothed loss of the
    first batch with dropout off, before any update}. Then each request {"threads": t} makes one update per batch and
    replies {"seconds": wall time of all of them, "loss": the mean loss of the last}."""
    import logging, torch
    from onmt.model_builder import build_base_model
    from onmt.inputters.inputter import dict_to_vocabs
    from onmt.utils.loss import LossCompute
    from onmt.utils.optimizers import Optimizer
    logging.disable(logging.CRITICAL)
    out, sys.stdout = sys.stdout, sys.stderr
    ck = torch.load(ckpt, map_location='cpu')
    q = json.loads(sys.stdin.readline())
    o = model_opts(_config_of(ck['opt']), q['train'])
    vocabs = dict_to_vocabs(ck['vocab'])
    model = build_base_model(o, vocabs)
    model.load_state_dict(ck, strict=False)                          # OpenNMT-py's own loader: 'model' and 'generator'
    loss_fn, optim = LossCompute.from_opts(o, model, vocabs['tgt']), Optimizer.from_opt(model, o)
    batches = []
    for src, tgt in q['batches']:
        s, t = torch.tensor(src), torch.tensor(tgt)
        batches.append({'src': s[:, :, None], 'tgt': t[:, :, None], 'srclen': (s != 0).sum(1), 'n': int((t[:, 1:] != 0).sum())})
    def update(b):
        optim.zero_grad(set_to_none=True)
        model_out, attns = model(b['src'], b['tgt'], b['srclen'], bptt=False, with_align=False)
        loss, stats = loss_fn(b, model_out, attns)
        optim.backward(loss / b['n']); optim.step()
        return float(loss) / b['n']
    model.eval()
    with torch.no_grad():
        b = batches[0]; model_out, attns = model(b['src'], b['tgt'], b['srclen']); loss0 = float(loss_fn(b, model_out, attns)[0]) / b['n']
    model.train()
    out.write(json.dumps({'params': sum(p.numel() for p in model.parameters()), 'loss0': loss0}) + '\n'); out.flush()
    for line in sys.stdin:
        torch.set_num_threads(json.loads(line)['threads'])
        t0 = time.perf_counter()
        for b in batches: loss = update(b)
        out.write(json.dumps({'seconds': time.perf_counter() - t0, 'loss': loss}) + '\n'); out.flush()

def _config_of(o) -> dict:
    "Our config fields that `model_opts` reads, back from the options stored in an OpenNMT-py checkpoint made by `convert`."
    return dict(N=o.enc_layers, d_model=o.hidden_size, d_ff=o.transformer_ff, h=o.heads)

if __name__ == '__main__':
    cmd = sys.argv[1] if len(sys.argv) > 1 else ''
    if cmd == 'convert' and len(sys.argv) == 4: convert(sys.argv[2], sys.argv[3])
    elif cmd == 'serve' and len(sys.argv) == 3: serve(Path(sys.argv[2]))
    elif cmd == 'train' and len(sys.argv) == 3: train(Path(sys.argv[2]))
    else: sys.exit(__doc__)

"""The checks that tie 09_training's prose to its numbers, run by the notebook's last (hidden) cell with
`exec(compile(open(...).read(), ...))` (`%run -i` would print a failure
without failing the cell, so `nbdev-test` would pass) (cwd: nbs/): every figure the text quotes from the stored results
(results/results.json, results/gpu/*.json, results/cpu_hour.json, results/multi30k_stats.json) and from the
arithmetic of §5.2 is recomputed here and looked up in the text, so a figure that drifts fails `nbdev-test`.
It recomputes what it needs and reads none of the notebook's variables (nor rebinds any: all in one function)."""

def _prose_checks_09():
    import json, re, statistics
    from pathlib import Path
    from transformer_nb.lib.machine import NotebookFile
    from transformer_nb.lib.transformer import count_config_params
    from transformer_nb.lib.options import get_model_config
    nb = NotebookFile('09_training.ipynb'); quoted = nb.quoted
    R = Path('../results')
    results = json.loads((R / 'results.json').read_text())
    stored = [(r['id'], int(re.search(r'checkpoint-(\d+)\.pt', r['command'].split('evaluate:')[1]).group(1)), r['train_time_s'])
              for r in results if r['dataset'] == 'multi30k' and r['decoding'] == 'greedy' and '(CPU)' in r['hardware']
              and '--threads 1 ' in r['command']]                               # the stored CPU runs of "§5.2 Hardware"
    assert len(stored) >= 2, stored
    assert {s[0] for s in stored} == {r['id'] for r in results if r['dataset'] == 'multi30k' and r['decoding'] == 'greedy'   # the notebook's
              and '--threads 1 ' in r['command'] and 'cuda' not in r['command']}                                                # filter, the same runs
    cpu_step_s = statistics.mean(secs / n for _, n, secs in stored)
    small_params = next(r['params'] for r in results if r['id'] == stored[0][0])
    gpu = json.loads((R / 'gpu/bench_train_gpu.json').read_text())
    runs = json.loads((R / 'gpu/gpu_runs.json').read_text())

    # §5.2 Hardware and schedule (cell 452c0caf)
    r_step, r_tok = cpu_step_s / 0.4, 125_000 / (2 * 2500 / cpu_step_s)
    assert round(r_step) == 5 and 40 <= r_tok < 60                         # "about five times as long", "about fifty times more"
    assert round(count_config_params(get_model_config('base')) / small_params) == 8   # "about eight times fewer", "eight times larger"
    quoted('452c0caf', f"({small_params / 1e6:.1f}M parameters")
    assert round(100_000 * cpu_step_s / 86_400) == 2                        # "would take two days"
    ms = {r['compile']: r['ours']['ms_step'] / 1e3 for r in gpu if r['len'] == 100}
    assert (round(0.4 / ms[False]), round(0.4 / ms[True])) == (5, 6)        # "a fifth (eager) to a sixth (compiled)"
    assert all(round(100_000 * s / 3600) == 2 for s in ms.values())         # "about two hours"
    w = runs['m30k-de-en-gpu-w512n3']
    assert {g['hardware'].split(' (')[0] for g in gpu} == {'NVIDIA H100 80GB HBM3'}       # the notebook names it 'NVIDIA H100 80GB'
    quoted('452c0caf', 'on one NVIDIA H100 80GB')
    quoted('452c0caf', f"d_model {w['config']['d_model']}, N = {w['config']['N']}, batches of {w['train_config']['max_tokens']:,} tokens")

    # the toy run's loss curve (c9a10001): its plateau is the uniform guess over the 12 tokens of the copy task
    import math
    assert round(math.log(12), 1) == 2.5; quoted('c9a10001', '$\\log 12 \\approx 2.5$ nats, a uniform guess over the 12 tokens')
    losses, nlls = globals()['losses'], globals()['nlls']                    # the live run: true on any CPU
    assert losses[0] > math.log(12) > min(losses[:50]) and losses[-1] > nlls[-1], (losses[0], min(losses[:50]))
    from transformer_nb.training import noam_lr, EPS_LS
    q = [1 - EPS_LS + EPS_LS / 12] + [EPS_LS / 12] * 11                      # the smoothed target over the 12 tokens
    floor = -sum(x * math.log(x) for x in q)                                 # its entropy: the least the smoothed loss can be
    quoted('c9a10001', f"the entropy of $q$: {floor:.2f} nats here"); assert losses[-1] > floor   # Gibbs: no run goes below it
    assert 'make_optimizer(model, 64, warmup=50, lr=0.3)' in nb.text['7af35b64']   # the toy run's d_model, warm-up and scale
    peak = noam_lr(50, 64, 50)                                               # the toy run's peak, before lr=0.3
    assert max(noam_lr(s, 64, 50) for s in range(1, 201)) == peak
    quoted('45481d33', f"\\approx {peak:.3f}$, {peak / noam_lr(4000, 512, 4000):.0f} times the base model's")

    # "100K" as epochs (cell c0a1e905)
    quoted('c0a1e90a', "each training step took about 0.4 seconds", "100,000 steps or 12 hours")   # the paper's numbers the text below uses
    quoted('c0a1e905', f"{100_000 * 0.4 / 3600:.1f} hours")
    quoted('c0a1e905', f"25,000 ≈ {4.5e6 * 25 / 25_000:,.0f}–{4.5e6 * 30 / 25_000:,.0f} updates")   # an epoch of WMT's 4.5M pairs at 25-30 tokens each
    assert all(15 <= 100_000 / (4.5e6 * m / 25_000) <= 25 and 1 <= 100_000 * 4.5e6 * m / 25_000 * 0.4 / 3.15e7 < 100 for m in (25, 30))

    # the GPU runs (b3904ff4) and the CPU hour (5d1fb809, f855dfa6)
    uni = json.loads((R / 'multi30k_stats.json').read_text())['unigram_valid_ppl']['de-en']
    n3, n6 = runs['m30k-de-en-gpu-w512n3'], runs['m30k-de-en-gpu-w512n6']
    past = [next(v['step'] for v in r['valid'] if v['ppl'] < uni) for r in (n3, n6)]
    quoted('b3904ff4', f"same {n3['train_config']['max_time']} minutes", f"ignores the source: {uni:.0f},", f"by update {max(past)}.",
           f"goes on to {n3['valid'][-1]['ppl']:.1f} after {n3['steps']:,} updates", f"with {n6['steps']:,} slower updates",
           f"ends at {n6['valid'][-1]['ppl']:.1f}")
    assert n6['train_config']['max_time'] == n3['train_config']['max_time']
    assert {k: v for k, v in n6['config'].items() if v != n3['config'][k]} == {'N': 6}        # "differ only in depth"
    assert all(round(secs / 3600) == 1 for _, _, secs in stored)                                # "about an hour each"
    hour = {r['direction']: r for r in json.loads((R / 'cpu_hour.json').read_text())}
    h = hour['de-en']; f = h['final']
    quoted('f855dfa6', f"({f['last']['valid']['bleu_lc']:.2f} against {f['average']['valid']['bleu_lc']:.2f} lowercased BLEU",
           f"scores {f['last']['test']['bleu_lc']:.2f} on test2016", f"by default, {f['average']['test']['bleu_lc']:.2f})",
           f"ran {h['wall_s'] / 60:.1f} minutes")
    assert h['chosen_on_valid'] == 'last'
    ed = hour['en-de']; assert (ed['chosen_on_valid'], ed['updates'], h['updates']) == ('average', 2200, 2200)
    quoted('f855dfa6', f"ran {ed['wall_s'] / 60:.1f} minutes and scored {ed['test_bleu_lc']:.2f} with the average",
           f"({ed['final']['last']['test']['bleu_lc']:.2f} with the last)")
    c = {p['step']: p for p in h['curve']}
    quoted('f855dfa6', f"passes 37 BLEU at {next(p['minutes'] for p in h['curve'] if p['bleu_lc'] >= 37):.1f} minutes",
           f"update 1,800, {1800 - h['train_config']['steps'] + h['train_config']['cooldown']} updates into it, scored {c[1800]['bleu_lc']:.2f}")
    assert h['train_config']['steps'] - h['train_config']['cooldown'] == 1500                 # the cool-down starts after update 1,500
    assert h['hardware'].startswith('AMD EPYC (AVX2), 2 cores (CPU)'); quoted('5d1fb809', 'on the 2-core AMD EPYC (AVX2)')
    quoted('5d1fb809', f"last 700 of its {h['train_config']['steps']:,} updates", f"warm-up of {h['train_config']['warmup']} updates")
    assert h['wall_s'] <= 3600 and f[h['chosen_on_valid']]['test']['bleu_lc'] >= 40

    # the figures of the more exercises, under Going deeper (c0a1e9d1)
    quoted('c0a1e9d1', f"({c[1200]['bleu_lc']:.2f} at update 1,200", f"{c[1500]['bleu_lc']:.2f} at 1,500)")
    assert round(100_000 * 10 * cpu_step_s / 86_400) == 22                                       # exercise 6
    quoted('c0a1e9d1', f"about {cpu_step_s:.1f} s per update", 'about 22 days')

_prose_checks_09(); del _prose_checks_09

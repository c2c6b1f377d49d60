"""The retry for torch's own gloo abort (torch_aborts.py) retries that and nothing else."""

from torch_aborts import TRIES, until_torch_keeps_its_ranks

ABORT = "torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGABRT"


def runs(*outputs):
    made = []
    it = iter(outputs)

    def run():
        made.append(next(it))
        return made[-1]
    return run, made


def test_an_abort_is_run_again_until_a_run_is_not_aborted():
    run, made = runs(ABORT, ABORT, "ok", "never made")
    assert until_torch_keeps_its_ranks(run, str) == "ok" and made == [ABORT, ABORT, "ok"]


def test_any_other_failure_is_kept_at_once():
    run, made = runs("ValueError: the script's own bug", "never made")
    assert until_torch_keeps_its_ranks(run, str) == "ValueError: the script's own bug" and len(made) == 1


def test_aborted_every_time_gives_the_last_abort():
    run, made = runs(*[ABORT] * (TRIES + 1))
    assert until_torch_keeps_its_ranks(run, str) == ABORT and len(made) == TRIES

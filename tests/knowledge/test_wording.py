"""Operator shorthand and typos read in the runbooks' own words (issue 15)."""

from __future__ import annotations

from knowledge.wording import Vocabulary, asks_question, spelled_out, without_contrasts


def test_shorthand_is_spelled_out_next_to_the_original() -> None:
    text = spelled_out("checkout pods crashlooping, one OOMKilled, the PVC and disk full")
    assert "crashlooping (crash looping" in text
    assert "OOMKilled (out of memory" in text
    assert "PVC (persistent volume claim)" in text
    assert text.endswith("disk full (out of space)")
    assert spelled_out("I am here") == "I am here"  # short words are not guessed at
    assert spelled_out("job never finished") == "job never finished (complete)"
    assert spelled_out("sts web not ready, cert expired") == (
        "sts (statefulset stateful set) web not ready, cert (certificate) expired"
    )


def test_a_typo_one_edit_from_one_corpus_word_is_corrected() -> None:
    vocab = Vocabulary(["The certificate expires; alertmanager is throttling."])
    assert vocab.corrected("certifcate expirs") == "certifcate certificate expirs expires"
    assert vocab.correct("alertmanger") == "alertmanager"
    assert vocab.correct("node-1") is None and vocab.correct("zebras") is None


def test_a_vocabulary_knows_its_words_and_their_one_edit_typos_only() -> None:
    vocab = Vocabulary(["The certificate expires; alertmanager is throttling."])
    assert vocab.knows_any(["zebra", "certificate"])
    assert vocab.knows_any(["alertmanger"])  # a typo of a corpus word
    assert not vocab.knows_any(["teh", "zebras"])
    assert Vocabulary([]).knows_any(["anything"])  # nothing to judge by: never refuses


def test_a_question_is_told_from_a_pasted_alert() -> None:
    assert asks_question("container keeps getting OOMKilled, how do I fix it?  ")
    assert not asks_question("Pod is crash looping. Pod default/web-0 has been restarting.")


def test_terse_chat_without_a_question_mark_is_a_persons_message() -> None:
    assert asks_question("etcd has no leader!! what do")
    assert asks_question("namespace quota exceded for payments, cant deploy")
    assert asks_question("kube-proxy down on a bunch of nodes")  # a few words, no full stop
    assert asks_question("our ingress pods restarting since the deploy")
    # Alert texts: third person, a summary sentence and a description, even without a full stop.
    assert not asks_question(
        "Network interface is often changing its status Network interface eth0 changing its"
        " up status often on node-exporter monitoring/node-exporter-8xk2p"
    )
    assert not asks_question("Node is not ready. node-3 has been unready for more than 15 minutes.")


def words(text: str) -> str:
    return " ".join(text.split())


def test_what_a_question_contrasts_the_problem_with_is_not_read() -> None:
    asked = "Under 5% free, no prediction. How is this different from the filling-up alert?"
    assert words(without_contrasts(asked)) == "Under 5% free, no prediction. How is this ?"
    assert words(
        without_contrasts("two pods are not running (they are not crash looping). Where to look?")
    ) == ("two pods are not running . Where to look?")
    assert words(without_contrasts("unlike yesterday, the job failed")) == ", the job failed"
    # A parenthetical that states the problem, and a negation outside one, are the question.
    assert without_contrasts("pods (two of three) not ready") == "pods (two of three) not ready"
    # "find out" asks; the problem's own "out" (out of memory, maxed out) stays.
    assert without_contrasts("how do I find out why the HPA is maxed out?") == (
        "how do I find why the HPA is maxed out?"
    )
    assert without_contrasts("(not this)") == "(not this)"  # nothing would be left
    # What it has not done ("running for two hours without failing") is not the problem.
    assert words(without_contrasts("the job has run for 2h without failing. why?")) == (
        "the job has run for 2h . why?"
    )
    assert without_contrasts("pods without limits") == "pods without limits"
    # What a thing failed to do is the problem: "restarted without reloading its config".
    kept = "prometheus restarted without reloading its config"
    assert without_contrasts(kept) == kept
    assert words(without_contrasts("the job ran without any errors, why the alert?")) == (
        "the job ran , why the alert?"
    )


def test_a_contrast_drops_only_what_it_rules_out_never_the_problem_itself() -> None:
    """Review: the contrast ran to the end of its clause, so the problem went with it."""
    # "not just X but Y" says both are the problem: nothing is ruled out.
    asked = "pods are not just slow but crash looping"
    assert without_contrasts(asked) == asked
    # The contrast stops where the question's own clause starts.
    assert words(without_contrasts("why unlike yesterday is the disk filling up")) == (
        "why is the disk filling up"
    )
    assert words(without_contrasts("instead of restarting the pod can we scale it")) == (
        "can we scale it"
    )
    # A hedge in brackets is still the question.
    hedged = "disk full (not sure if related to the OOM kills)"
    assert without_contrasts(hedged) == hedged

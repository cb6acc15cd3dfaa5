"""The shared word helpers: stems as the FTS5 porter tokenizer reads words, and cuts at a word."""

from __future__ import annotations

from memory.text import at_word, item_references, joined_stems, stems, without_item_references


def test_stems_meet_across_endings_and_leave_digits_and_ids_alone() -> None:
    assert stems("rolled back the pods") == stems("roll back a pod")
    assert stems("v41 at 10:12") == {"v41", "10", "12"}


def test_a_compound_is_read_from_two_words_a_space_or_hyphen_apart_only() -> None:
    assert "rollback" in joined_stems("we rolled back")
    assert "rollback" in joined_stems("rolled-back release")
    assert joined_stems("we rolled. back then").keys().isdisjoint({"rollback"})
    # A phrasal verb says its object between: "roll checkout-api back", "scale the pods down".
    assert "rollback" in joined_stems("decision: roll checkout-api back to v7.2.4")
    assert "scaledown" in joined_stems("scale the pods down")
    assert "rollback" not in joined_stems("roll out the fix to eu-west, then go back")
    # Only a verb that takes a particle, never across a line, a number or "twice".
    assert "failov" not in joined_stems("the deploy failed twice over the weekend")
    assert "failov" not in joined_stems("the nightly job failed 3 times over 2 hours")
    assert "failov" not in joined_stems("checkout failed\n- pods over 500 conns")
    assert "failov" in joined_stems("we failed the primary over to db-2")


def test_a_cut_backs_off_to_a_whole_word_unless_the_space_is_too_early() -> None:
    assert at_word("check the pgbouncer pool", 12) == "check the"
    assert at_word("check the pgbouncer pool", 9) == "check the"  # ends on a word already
    assert at_word("see " + "y" * 20, 10) == "see " + "y" * 6  # the space is too early
    assert at_word("short", 10) == "short"


def test_item_references_are_ticket_keys_and_numbers_not_hashes_or_hostnames() -> None:
    said = "AI-1 and OPS-1234 (see PR #2219), SHA-256 pinned, kafka-prod-2-b3 restarted"
    assert item_references(said) == {"ai-1", "ops-1234", "#2219"}
    assert item_references("SEV-1, AES-256, RSA-2048, UTC-5, HTTP-503 and P-1") == set()
    # Lower case is read only when asked: alone, "node-4" is as often a host as an item.
    assert item_references("i'll take ai-1 off node-4") == set()
    assert item_references("i'll take ai-1", any_case=True) == {"ai-1"}
    assert "SHA-256" in without_item_references(said) and "AI-1" not in without_item_references(
        said
    )


def test_a_negation_typed_without_its_apostrophe_is_no_topic_word() -> None:
    assert stems("why didnt it help, it doesnt scale") == stems(
        "why didn't it help, it doesn't scale"
    )


def test_an_abbreviation_meets_the_word_it_abbreviates() -> None:
    """ "cert" and "certificate", "db" and "database", "svc" and "service" are one word to
    whoever wrote them; "certs" is "certificates"."""
    from memory.text import stems, word_forms

    assert stems("certs on api expired") >= stems("certificate expired")
    assert stems("the orders db") == stems("the orders database")
    assert word_forms("certificate") == ("certificate", "cert")
    assert word_forms("certs") == ("certs", "certificate")
    assert word_forms("directories") == ("directories", "dir")
    assert stems("max connections") == stems("connections maxed")
    assert word_forms("pool") == ("pool",)


def test_the_verb_that_asks_what_was_seen_is_no_topic_word() -> None:
    """ "What did the heap dump show?" is about the heap dump: a note that answers says what it
    showed, rarely "show"."""
    from memory.text import question_topic

    assert stems(question_topic("What did the heap dump show was eating the memory?")) == {
        "heap",
        "dump",
        "eat",
        "memori",
    }
    assert "print" not in question_topic("What warning did Node print that pointed at the leak?")
    assert "show" in question_topic("did the dashboard show errors?")  # asks whether, not what
    # The verb ends the clause; a noun of the subject before it stays ("the crash report").
    assert stems(question_topic("what did the crash report show?")) == {"crash", "report"}
    assert "command" in question_topic("what did the show-config command print?")
    assert "showed" in question_topic("what did we decide? the dashboard showed errors")
    assert "showed" in question_topic("what did we decide? the dashboard showed.")


def test_the_kind_of_text_asked_for_is_no_topic_word() -> None:
    """ "What command did we use to promote?" is about promoting: the note that answers quotes
    the command, rarely the word "command"."""
    from memory.recall.answer_type import wanted
    from memory.text import question_topic

    assert stems(question_topic("what command did we use to promote?")) == {"promot"}
    assert stems(question_topic("which flag did we run the migration with?")) == {"migrat"}
    assert "command" in question_topic("did the command finish?")  # asks whether, not which
    assert wanted("what command did we use to promote?") == "verbatim"
    assert stems(question_topic("whats the bridge link?")) == {"bridg"}
    assert "link" in question_topic("did the link break?")
    assert "link" in question_topic("what broke the link?")  # the link is the subject
    assert "link" in question_topic("any errors on the link to us-east?")


def test_a_network_link_is_the_topic_and_no_address_asked_for() -> None:
    """One reading of "link" for the topic, the answer type and recall: "any packet loss on the
    link?" asks about the link; "link to the lag dashboard?" asks for an address."""
    from memory.text import asks_for_a_link, question_topic

    assert asks_for_a_link("link to the lag dashboard?")
    assert asks_for_a_link("what's the bridge link?")
    assert not asks_for_a_link("any packet loss on the link?")
    assert not asks_for_a_link("what's wrong with the link?")
    assert "link" in question_topic("any packet loss on the link?")
    assert "link" not in question_topic("link to the lag dashboard?")

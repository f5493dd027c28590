"""The whole-post tests again, on a real PostgreSQL (the operator's choice for several
daemons): the same models, prepared statements and transactions, another database."""
from __future__ import annotations

import itertools

import pytest

from pbp.store.db import open_database

pytestmark = pytest.mark.live
_numbers = itertools.count()


@pytest.fixture
def db(postgres):
    """Overrides tests/conftest.py's SQLite ``db`` for the tests imported below."""
    database = open_database(postgres.create_database(f"pbp_test_{next(_numbers)}"))
    yield database
    database.close()


from tests.test_pipeline import (  # noqa: E402,F401  (collected here with the PostgreSQL db)
    test_a_resent_copy_never_rolls_again,
    test_charles_investigates_antarctica,
    test_fate_point_spend_refused_at_zero,
    test_ledger_is_hash_chained_and_tamper_evident,
    test_molotov_creates_on_fire_with_a_free_invoke,
    test_rules_error_in_second_command_rolls_back_the_first,
    test_second_command_invalid_changes_nothing_and_gets_one_reply,
    test_stranger_gets_one_polite_reply_a_day,
)
from tests.test_copies import (  # noqa: E402,F401
    test_a_forward_as_message_rfc822_returns_the_original_result,
    test_an_edited_copy_returns_the_original_result_and_never_rolls,
    test_another_member_reusing_a_message_id_sees_nothing_of_the_original,
)

from tests.test_headers import (  # noqa: E402,F401
    test_a_5000_character_message_id_or_from_is_not_kept_or_copied,
    test_any_subject_gives_a_short_clean_subject,
    test_threading_ids_never_copied_raw_and_references_trimmed,
)
from tests.test_kept_table import (  # noqa: E402,F401
    test_a_write_outside_the_daemon_is_seen_by_its_next_post,
    test_two_daemons_on_one_database_each_see_the_others_posts,
)
from tests.test_trust import strict, test_the_notice_to_an_unverified_member_is_rate_limited  # noqa: E402,F401


def test_version_1_gets_the_post_fingerprint_columns_in_place(postgres):
    from tests.test_migrations import check_fingerprint_migration

    check_fingerprint_migration(postgres.create_database(f"pbp_test_{next(_numbers)}"))


def test_version_8_keys_its_posts_by_campaign_author_and_id(postgres):
    from tests.test_migrations import check_post_key_migration

    check_post_key_migration(postgres.create_database(f"pbp_test_{next(_numbers)}"))

"""The tests' PostgreSQL: started from Debian's package in a temporary directory, one empty
database per caller."""

from __future__ import annotations

from tests.support.postgres import PostgresServer


def test_each_caller_gets_an_empty_database_of_its_own(postgres: PostgresServer) -> None:
    first = postgres.new_database()
    second = postgres.new_database()
    assert first != second and first.startswith("postgresql://teamchat@127.0.0.1:")
    first_name = first.rsplit("/", 1)[1]
    postgres.psql("CREATE TABLE note (body TEXT)", first_name)
    postgres.psql("INSERT INTO note VALUES ('kept')", first_name)
    assert postgres.psql("SELECT body FROM note", first_name).strip() == "kept"
    tables = postgres.psql(
        "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", second.rsplit("/", 1)[1]
    )
    assert tables.strip() == "0"

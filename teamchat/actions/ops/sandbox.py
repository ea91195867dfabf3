"""Seeding `teamchat sandbox`: Zulip's development organization, made through the actions.

Every user, bot, channel, subscription, message and reaction is created by the same
`check_*` actions the API uses, in a fixed order, with a fixed random sequence
(`SANDBOX_SEED`): two sandboxes get the same ids, credentials, messages and reactions.
It must not run on an organization of real people (the CLI checks `is_sandbox`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from teamchat.actions.channels.streams import ChannelRequest, CreateOptions, check_add_subscriptions
from teamchat.actions.messages.message_send import SendRequest, check_send_message
from teamchat.actions.messages.reactions import check_add_reaction
from teamchat.actions.org.realm import check_create_realm
from teamchat.actions.org.realm_settings import check_update_realm
from teamchat.actions.people.bots import NewBot, check_add_bot
from teamchat.actions.people.user_admin import do_change_user_role
from teamchat.actions.people.user_settings import check_change_settings
from teamchat.actions.people.users import check_create_user
from teamchat.lib import sandbox_fixtures as fx
from teamchat.lib.passwords import random_password, seeded_secrets
from teamchat.records import RealmRow, Role, UserRow
from teamchat.runtime import Runtime
from teamchat.store import realm as realm_store
from teamchat.store import streams as stream_store
from teamchat.store import users as user_store

SANDBOX_CLIENT = "populate_db"


@dataclass(frozen=True)
class SandboxAccount:
    """One account's credentials, for the printed table and the zuliprc files."""

    user_id: int
    full_name: str
    email: str
    role: str
    password: str | None  # None for bots
    api_key: str


def is_sandbox(realm: RealmRow) -> bool:
    """True for an organization `seed_sandbox` made (the only kind the sandbox serves): its
    host, which no API or CLI command changes (its name may be changed in the sandbox)."""
    return realm.host == fx.SANDBOX_REALM_HOST


class SeedClock:
    """The seeding runtime's clock: set by the seeder, so messages are spread over time."""

    def __init__(self, start: float) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


async def seed_sandbox(
    rt: Runtime, clock: SeedClock, *, realm_url: str, progress: Callable[[str], None]
) -> None:
    """Create the sandbox organization in an empty database."""
    passwords = sandbox_passwords()
    with seeded_secrets(fx.SANDBOX_SEED):
        progress("creating the organization")
        _, owner = await check_create_realm(
            rt,
            name=fx.SANDBOX_REALM_NAME,
            owner_email=fx.OWNER.email,
            owner_full_name=fx.OWNER.full_name,
            owner_password=passwords[fx.OWNER.email],
            host=fx.SANDBOX_REALM_HOST,
            realm_url=realm_url,
        )
        progress("creating users and bots")
        users = await _create_users(rt, owner, passwords)
        for bot in fx.BOTS:
            new = NewBot(full_name=bot.full_name, short_name=bot.short_name, bot_type=bot.bot_type)
            await check_add_bot(rt, users[bot.owner_email], new)
        progress("creating channels")
        await _create_channels(rt, owner, users)
        progress("sending messages")
        await _send_messages(rt, clock, users, realm_url)


def sandbox_passwords() -> dict[str, str]:
    """Every user's password: a fixed sequence, so they are the same in every sandbox."""
    with seeded_secrets(fx.SANDBOX_SEED + "-passwords"):
        return {user.email: random_password() for user in fx.USERS}


async def _create_users(
    rt: Runtime, owner: UserRow, passwords: dict[str, str]
) -> dict[str, UserRow]:
    users = {owner.delivery_email: owner}
    for fixture in fx.USERS[1:]:
        user = await check_create_user(
            rt,
            email=fixture.email,
            full_name=fixture.full_name,
            password=passwords[fixture.email],
        )
        if fixture.role != Role.MEMBER:
            await do_change_user_role(rt, user, fixture.role)
        users[fixture.email] = user
    for fixture in fx.USERS:
        if fixture.timezone:
            await check_change_settings(rt, users[fixture.email], {}, timezone=fixture.timezone)
    async with rt.db.read() as conn:
        for email, user in users.items():
            fresh = await user_store.get_user_by_id(conn, user.id)
            assert fresh is not None
            users[email] = fresh
    return users


async def _create_channels(rt: Runtime, owner: UserRow, users: dict[str, UserRow]) -> None:
    for channel in fx.CHANNELS:
        members = [email for email, names in fx.SUBSCRIPTIONS.items() if channel.name in names]
        await check_add_subscriptions(
            rt,
            owner,
            [ChannelRequest(name=channel.name, description=channel.description)],
            CreateOptions(invite_only=channel.invite_only),
            principals=[users[email].id for email in members],
            authorization_errors_fatal=True,
        )
    if fx.CHANNELS:
        async with rt.db.read() as conn:
            verona = await stream_store.get_stream_by_name(conn, fx.CHANNELS[0].name)
        assert verona is not None
        # zulip-compat: the development organization announces new channels in Verona.
        await check_update_realm(rt, owner, {"new_stream_announcements_stream_id": verona.id})


async def _send_messages(
    rt: Runtime, clock: SeedClock, users: dict[str, UserRow], realm_url: str
) -> None:
    """MESSAGE_COUNT channel messages from subscribers, some with mentions and reactions,
    then the direct messages; one fixed random sequence decides everything."""
    rng = random.Random(fx.SANDBOX_SEED)
    members = {
        channel.name: [email for email, names in fx.SUBSCRIPTIONS.items() if channel.name in names]
        for channel in fx.CHANNELS
    }
    for index in range(fx.MESSAGE_COUNT):
        clock.now += fx.MESSAGE_SPACING_SECS
        channel = rng.choice(fx.CHANNELS)
        sender = users[rng.choice(members[channel.name])]
        others = [users[email] for email in members[channel.name] if users[email].id != sender.id]
        mention = f"@**{rng.choice(others).full_name}**" if others else "everyone"
        content = rng.choice(fx.LINES).replace("{mention}", mention)
        # Each channel's topics in turn, a few messages per topic at a time.
        topic = channel.topics[(index // 7) % len(channel.topics)]
        send = _request("stream", channel.name, topic, content, realm_url)
        sent = await check_send_message(rt, sender, send)
        if rng.random() < 0.25 and others:
            for reactor in rng.sample(others, min(len(others), rng.randint(1, 3))):
                emoji = rng.choice(fx.REACTION_EMOJI)
                await check_add_reaction(rt, reactor, sent.id, emoji, None, None)
    for emails, content in fx.DIRECT_MESSAGES:
        clock.now += fx.MESSAGE_SPACING_SECS
        sender = users[emails[0]]
        recipients = [users[email].id for email in emails[1:]]
        await check_send_message(
            rt, sender, _request("private", recipients, None, content, realm_url)
        )


def _request(
    kind: str, to: str | list[int], topic: str | None, content: str, realm_url: str
) -> SendRequest:
    return SendRequest(
        recipient_type=kind, to=to, topic=topic, content=content, client=SANDBOX_CLIENT,
        realm_url=realm_url, read_by_sender=True,
    )  # fmt: skip


async def sandbox_accounts(rt: Runtime) -> list[SandboxAccount]:
    """The sandbox's people and its bots (not the system bots), in id order."""
    passwords = sandbox_passwords()
    by_email = {email.lower(): password for email, password in passwords.items()}
    async with rt.db.read() as conn:
        realm = await realm_store.get_realm(conn)
        assert realm is not None
        users = await user_store.list_users(conn, is_active=True)
    bot_emails = {f"{bot.short_name}-bot@{realm.host}" for bot in fx.BOTS}
    accounts = []
    for user in sorted(users, key=lambda u: u.id):
        email = user.delivery_email
        if user.is_bot and email not in bot_emails:
            continue
        accounts.append(
            SandboxAccount(
                user_id=user.id,
                full_name=user.full_name,
                email=email,
                role="bot" if user.is_bot else Role(user.role).name.lower(),
                password=None if user.is_bot else by_email.get(email.lower()),
                api_key=user.api_key,
            )
        )
    return accounts

"""The sandbox organization's fixed data: Zulip's development users, bots and channels.

Pure data (no I/O); `teamchat.actions.ops.sandbox` creates it through the actions. Names,
emails, roles, channels and subscriptions are those of Zulip's development database
(`zilencer/management/commands/populate_db.py`); the message texts are our own.
"""

from __future__ import annotations

from dataclasses import dataclass

from teamchat.records import BotType, Role

SANDBOX_REALM_NAME = "Zulip Dev"
# zulip-compat: the development users' domain; system bots become welcome-bot@zulip.com etc.
SANDBOX_REALM_HOST = "zulip.com"
# Every credential, id and message of a sandbox follows from this seed.
SANDBOX_SEED = "teamchat-sandbox-1"
MESSAGE_COUNT = 300
# Seeded messages are spread over the time before the sandbox starts, this far apart.
MESSAGE_SPACING_SECS = 240


@dataclass(frozen=True)
class SandboxUser:
    full_name: str
    email: str
    role: Role = Role.MEMBER
    timezone: str = ""


@dataclass(frozen=True)
class SandboxBot:
    full_name: str
    short_name: str  # the email is {short_name}-bot@zulip.com
    bot_type: BotType
    owner_email: str


@dataclass(frozen=True)
class SandboxChannel:
    name: str
    description: str
    topics: tuple[str, ...]
    invite_only: bool = False


# The owner first: creating the organization creates its owner.
OWNER = SandboxUser("Desdemona", "desdemona@zulip.com", Role.OWNER, "Canada/Newfoundland")
USERS = (
    OWNER,
    SandboxUser("Zoe", "ZOE@zulip.com", timezone="US/Eastern"),
    SandboxUser("Othello, the Moor of Venice", "othello@zulip.com", timezone="US/Pacific"),
    SandboxUser("Iago", "iago@zulip.com", Role.ADMINISTRATOR, "US/Eastern"),
    SandboxUser("Prospero from The Tempest", "prospero@zulip.com"),
    SandboxUser("Cordelia, Lear's daughter", "cordelia@zulip.com", timezone="UTC"),
    SandboxUser("King Hamlet", "hamlet@zulip.com"),
    SandboxUser("aaron", "AARON@zulip.com", timezone="US/Pacific"),
    SandboxUser("Polonius", "polonius@zulip.com", Role.GUEST, "Asia/Shanghai"),
    SandboxUser("शिव", "shiva@zulip.com", Role.MODERATOR, "Asia/Kolkata"),
)

BOTS = (
    SandboxBot("Zulip Error Bot", "error", BotType.GENERIC, "desdemona@zulip.com"),
    SandboxBot("Zulip Default Bot", "default", BotType.GENERIC, "desdemona@zulip.com"),
    SandboxBot("Zulip Webhook Bot", "webhook", BotType.INCOMING_WEBHOOK, "ZOE@zulip.com"),
)

CORE_TEAM = "core team"
CHANNELS = (
    SandboxChannel(
        "Verona", "A city in Italy", ("Verona2", "balcony", "two gentlemen", "logistics")
    ),
    SandboxChannel(
        "Denmark", "A Scandinavian country", ("Elsinore", "the ghost", "royal affairs", "plays")
    ),
    SandboxChannel(
        "Scotland", "Located in the United Kingdom", ("weather", "castle repairs", "heath")
    ),
    SandboxChannel("Venice", "A northeastern Italian city", ("canals", "trade", "the merchant")),
    SandboxChannel("Rome", "Yet another Italian city", ("senate", "ides of March", "forum")),
    SandboxChannel(
        CORE_TEAM,
        "A private channel for core team members",
        ("release planning", "hiring"),
        invite_only=True,
    ),
)

# zulip-compat: populate_db's fixed subscriptions (its --test-suite map).
SUBSCRIPTIONS = {
    "AARON@zulip.com": ("Verona",),
    "cordelia@zulip.com": ("Verona",),
    "hamlet@zulip.com": ("Verona", "Denmark", CORE_TEAM),
    "iago@zulip.com": ("Verona", "Denmark", "Scotland", CORE_TEAM),
    "othello@zulip.com": ("Verona", "Denmark", "Scotland"),
    "prospero@zulip.com": ("Verona", "Denmark", "Scotland", "Venice"),
    "ZOE@zulip.com": ("Verona", "Denmark", "Scotland", "Venice", "Rome"),
    "polonius@zulip.com": ("Verona",),
    "desdemona@zulip.com": ("Verona", "Denmark", "Venice", CORE_TEAM),
    "shiva@zulip.com": ("Verona", "Denmark", "Scotland"),
}

# zulip-compat: the reactions populate_db adds (DEFAULT_EMOJIS), by name.
REACTION_EMOJI = ("+1", "smiley", "eyes", "crying_cat", "up", "confetti")  # Zulip's names

# Message bodies; "{mention}" becomes a mention of another subscriber.
LINES = (
    "Has anyone seen the new schedule?",
    "I think we should **ship it** today.",
    "Looks good to me :+1:",
    "Can you take a look at this, {mention}?",
    "Here is the snippet:\n```python\nprint('to be or not to be')\n```",
    "> Brevity is the soul of wit.\n\nAgreed.",
    "The meeting moved to *Thursday*.",
    "{mention} what do you think?",
    "Notes from today:\n* the gate is fixed\n* the lamps need oil\n* nobody saw the ghost",
    "Thanks, that helps a lot.",
    "See https://zulip.com/api/ for the details.",
    "I'll follow up tomorrow.",
    "Running `make test` now :hourglass:",
    "Sounds like a plan, {mention}.",
    "Who is taking the night watch?",
    "Fixed in the latest build.",
    "Let's move this discussion to another topic.",
    "The weather here is terrible again :umbrella:",
    "Welcome aboard, {mention}! :tada:",
    "I disagree, but I will not block it.",
)

DIRECT_MESSAGES = (
    (("hamlet@zulip.com", "cordelia@zulip.com"), "Are you coming to the play tonight?"),
    (("cordelia@zulip.com", "hamlet@zulip.com"), "Yes, save me a seat near the front."),
    (("iago@zulip.com", "othello@zulip.com"), "A word in private, my lord?"),
    (("othello@zulip.com", "iago@zulip.com"), "Speak, honest Iago."),
    (
        ("hamlet@zulip.com", "cordelia@zulip.com", "othello@zulip.com"),
        "A group chat for the three of us, for planning the visit.",
    ),
    (
        ("othello@zulip.com", "hamlet@zulip.com", "cordelia@zulip.com"),
        "Good idea. I will bring the maps.",
    ),
)

"""GitLab's webhook payloads (GitLab's "Webhook events" reference), as far as the messages
read them; unknown fields are ignored."""

from __future__ import annotations

from msgspec import Struct, field


class User(Struct, frozen=True):
    name: str = ""
    username: str = ""


class Project(Struct, frozen=True):
    name: str = ""
    web_url: str = ""


class Repository(Struct, frozen=True):
    name: str = ""
    homepage: str = ""


class Position(Struct, frozen=True):
    new_path: str = ""


class Attributes(Struct, frozen=True):
    """object_attributes: an issue, merge request, note, wiki page, pipeline or flag."""

    id: int = 0
    iid: int = 0
    title: str = ""
    url: str = ""
    description: str | None = None
    action: str | None = None
    source_branch: str = ""
    target_branch: str = ""
    oldrev: str | None = None
    noteable_type: str = ""
    note: str = ""
    status: str = ""
    ref: str = ""
    name: str = ""
    active: bool = False
    expires_at: str = ""
    position: Position | None = None


class Commit(Struct, frozen=True):
    id: str
    message: str = ""
    url: str = ""
    author: User = field(default_factory=User)


class Item(Struct, frozen=True):
    """The merge request, issue or snippet a note is on."""

    id: int = 0
    iid: int = 0
    title: str = ""
    url: str | None = None


class Artifacts(Struct, frozen=True):
    filename: str | None = None


class Build(Struct, frozen=True):
    id: int
    name: str = ""
    status: str = ""
    artifacts_file: Artifacts = field(default_factory=Artifacts)


class Group(Struct, frozen=True):
    group_name: str = ""
    group_path: str = ""


class Payload(Struct, frozen=True):
    object_kind: str = ""
    event_name: str | None = None
    user_name: str = ""
    user: User = field(default_factory=User)
    user_url: str = ""
    project: Project | None = None
    repository: Repository = field(default_factory=Repository)
    ref: str = ""
    before: str = ""
    after: str | None = None
    checkout_sha: str | None = None
    commits: list[Commit] = field(default_factory=list)
    object_attributes: Attributes = field(default_factory=Attributes)
    assignees: list[User] | None = None
    assignee: User | None = None
    merge_request: Item | None = None
    issue: Item | None = None
    snippet: Item | None = None
    commit: Commit | None = None
    builds: list[Build] = field(default_factory=list)
    build_name: str = ""
    build_stage: str = ""
    build_status: str = ""
    # Release Hook
    action: str = ""
    name: str = ""
    tag: str | bool = ""  # a release's tag name; a job's "is it a tag" flag
    url: str = ""
    description: str | None = None
    # Deployment Hook
    status: str = ""
    environment: str = ""
    deployable_url: str = ""
    commit_title: str = ""
    commit_url: str = ""
    group: Group | None = None

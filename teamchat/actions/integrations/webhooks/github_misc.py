"""GitHub's repository-level events (pushes, tags, releases, checks, deployments, wiki,
stars, forks, members, teams...) as Zulip words them."""

from __future__ import annotations

from msgspec import Struct, field

from teamchat.actions.integrations.webhooks import git
from teamchat.actions.integrations.webhooks.base import WebhookRequest
from teamchat.actions.integrations.webhooks.github_shapes import (
    Comment,
    Event,
    PushEvent,
    Repo,
    Team,
    User,
)


def repo_of(event: Event) -> Repo:
    return event.repository or Repo(name="")


def branch_of(ref: str) -> str:
    return ref.removeprefix("refs/heads/")


def push_commits(req: WebhookRequest) -> str:
    event = req.parse(PushEvent)
    commits = [
        git.Commit(
            author=c.author.username or c.author.name, sha=c.id, url=c.url, message=c.message
        )
        for c in event.commits
    ]
    return git.push_message(
        event.sender.login,
        event.compare,
        branch_of(event.ref),
        commits,
        deleted=event.deleted,
        force_push=event.forced,
    )


def push_tags(req: WebhookRequest) -> str:
    event = req.parse(PushEvent)
    tag = event.ref.removeprefix("refs/tags/")
    return git.tag_message(event.sender.login, tag, action="pushed" if event.created else "removed")


class RefEvent(Event, frozen=True):
    ref: str = ""
    ref_type: str = ""


def create_or_delete(action: str, req: WebhookRequest) -> str:
    event = req.parse(RefEvent)
    return f"{event.sender.login} {action} {event.ref_type} {event.ref}.".rstrip()


class CommitCommentEvent(Event, frozen=True):
    comment: Comment | None = None


def commit_comment(req: WebhookRequest) -> str:
    event = req.parse(CommitCommentEvent)
    if event.comment is None:
        raise req.unsupported("commit_comment")
    url = event.comment.html_url
    return git.commit_comment_message(
        event.sender.login,
        f"[commented]({url})",
        url.split("#", 1)[0],
        event.comment.commit_id,
        event.comment.body,
    )


class Release(Struct, frozen=True):
    tag_name: str
    html_url: str
    name: str | None = None


class ReleaseEvent(Event, frozen=True):
    release: Release | None = None


def release(req: WebhookRequest) -> str:
    event = req.parse(ReleaseEvent)
    if event.release is None:
        raise req.unsupported(f"release:{event.action}")
    item = event.release
    return git.release_message(
        event.sender.login, event.action, item.tag_name, item.name or item.tag_name, item.html_url
    )


class CheckRun(Struct, frozen=True):
    name: str
    html_url: str
    status: str
    head_sha: str
    conclusion: str | None = None


class CheckRunEvent(Event, frozen=True):
    check_run: CheckRun | None = None


def check_run_event(req: WebhookRequest) -> CheckRunEvent:
    event = req.parse(CheckRunEvent)
    if event.check_run is None:
        raise req.unsupported(f"check_run:{event.action}")
    return event


def check_run(req: WebhookRequest) -> str:
    event = check_run_event(req)
    run = event.check_run
    assert run is not None
    commit_url = f"{repo_of(event).html_url}/commit/{run.head_sha}"
    return (
        f"Check [{run.name}]({run.html_url}) {run.status} ({run.conclusion}). "
        f"([{git.short_sha(run.head_sha)}]({commit_url}))"
    )


class Deployment(Struct, frozen=True):
    environment: str = ""


class DeploymentStatus(Struct, frozen=True):
    state: str


class DeploymentEvent(Event, frozen=True):
    deployment: Deployment | None = None
    deployment_status: DeploymentStatus | None = None


def deployment(req: WebhookRequest) -> str:
    return f"{req.parse(Event).sender.login} created new deployment."


def deployment_status(req: WebhookRequest) -> str:
    event = req.parse(DeploymentEvent)
    if event.deployment_status is None:
        raise req.unsupported(f"deployment_status:{event.action}")
    return f"Deployment changed status to {event.deployment_status.state}."


def deployment_topic(req: WebhookRequest) -> str:
    event = req.parse(DeploymentEvent)
    environment = event.deployment.environment if event.deployment else ""
    return f"{repo_of(event).name} / Deployment on {environment}"


class Forkee(Struct, frozen=True):
    name: str
    html_url: str


class ForkEvent(Event, frozen=True):
    forkee: Forkee | None = None


def fork(req: WebhookRequest) -> str:
    event = req.parse(ForkEvent)
    if event.forkee is None:
        raise req.unsupported("fork")
    return f"{event.sender.login} forked [{event.forkee.name}]({event.forkee.html_url})."


class WikiPage(Struct, frozen=True):
    action: str
    title: str
    html_url: str


class GollumEvent(Event, frozen=True):
    pages: list[WikiPage] = field(default_factory=list)


def gollum(req: WebhookRequest) -> str:
    event = req.parse(GollumEvent)
    rows = "".join(f"* {p.action} [{p.title}]({p.html_url})\n" for p in event.pages)
    return f"{event.sender.login}:\n{rows.rstrip()}"


def _repo_link(event: Event) -> str:
    repo = repo_of(event)
    return f"[{repo.full_name}]({repo.html_url})"


def public(req: WebhookRequest) -> str:
    event = req.parse(Event)
    return f"{event.sender.login} made the repository {_repo_link(event)} public."


def watch(req: WebhookRequest) -> str:
    event = req.parse(Event)
    return f"{event.sender.login} starred the repository {_repo_link(event)}."


def star(req: WebhookRequest) -> str:
    event = req.parse(Event)
    verb = "starred" if event.action == "created" else "unstarred"
    sender = event.sender
    return f"[{sender.login}]({sender.html_url}) {verb} the repository {_repo_link(event)}."


def repository(req: WebhookRequest) -> str:
    event = req.parse(Event)
    return f"{event.sender.login} {event.action} the repository {_repo_link(event)}."


def ping(req: WebhookRequest) -> str:
    return f"GitHub webhook has been successfully configured by {req.parse(Event).sender.login}."


class MemberEvent(Event, frozen=True):
    member: User | None = None
    team: Team | None = None
    changes: dict[str, dict[str, object]] = field(default_factory=dict)


def _member(req: WebhookRequest) -> tuple[MemberEvent, User]:
    event = req.parse(MemberEvent)
    if event.member is None:
        raise req.unsupported(f"member:{event.action}")
    return event, event.member


def member(req: WebhookRequest) -> str:
    event, who = _member(req)
    repo = repo_of(event)
    return (
        f"{event.sender.login} {event.action} [{who.login}]({who.html_url}) to "
        f"[{repo.name}]({repo.html_url})."
    )


def membership(req: WebhookRequest) -> str:
    event, who = _member(req)
    team = event.team.name if event.team else ""
    preposition = "from" if event.action == "removed" else "to"
    return (
        f"{event.sender.login} {event.action} [{who.login}]({who.html_url}) {preposition} "
        f"the {team} team."
    )


def team_add(req: WebhookRequest) -> str:
    event = req.parse(MemberEvent)
    team = event.team.name if event.team else ""
    return f"The repository {_repo_link(event)} was added to team {team}."


def team(req: WebhookRequest) -> str:
    event = req.parse(MemberEvent)
    current = event.team or Team(name="")
    if "description" in event.changes:
        return (
            f"**{event.sender.login}** changed the team description to:\n\n"
            f"~~~ quote\n{current.description}\n~~~"
        )
    if "name" in event.changes:
        return f"Team `{event.changes['name'].get('from')}` was renamed to `{current.name}`."
    if "privacy" in event.changes:
        return f"Team visibility changed to `{current.privacy}`"
    return f"Team has changes to `{'/'.join(sorted(event.changes))}` data."


class BuildError(Struct, frozen=True):
    message: str | None = None


class Build(Struct, frozen=True):
    status: str
    pusher: User
    error: BuildError = field(default_factory=BuildError)


class PageBuildEvent(Event, frozen=True):
    build: Build | None = None


_BUILD_STATES = {
    "null": "has yet to be built",
    "building": "is being built",
    "errored": "has failed: {}",
    "built": "has finished building",
}


def page_build(req: WebhookRequest) -> str:
    event = req.parse(PageBuildEvent)
    if event.build is None:
        raise req.unsupported("page_build")
    build = event.build
    action = _BUILD_STATES.get(build.status, f"is {build.status}")
    if build.error.message:
        action = action.replace("{}", git.quote(build.error.message))
    return f"GitHub Pages build, triggered by {build.pusher.login}, {action}."


class StatusCommit(Struct, frozen=True):
    html_url: str


class StatusEvent(Event, frozen=True):
    sha: str = ""
    state: str = ""
    target_url: str | None = None
    commit: StatusCommit | None = None


def status(req: WebhookRequest) -> str:
    event = req.parse(StatusEvent)
    state = f"[{event.state}]({event.target_url})" if event.target_url else event.state
    url = event.commit.html_url if event.commit else ""
    return f"[{git.short_sha(event.sha)}]({url}) changed its status to {state}."

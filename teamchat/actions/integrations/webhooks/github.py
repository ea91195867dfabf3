"""GitHub: the X-GitHub-Event header names the event, the payload's action refines it into
Zulip's event names (the ones only_events/exclude_events match). Pure."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from teamchat.actions.integrations.webhooks import git, github_items, github_misc
from teamchat.actions.integrations.webhooks.base import Integration, Notice, WebhookRequest
from teamchat.actions.integrations.webhooks.github_shapes import Event as BaseEvent
from teamchat.actions.integrations.webhooks.github_shapes import IssueEvent, PullRequestEvent

Body = Callable[[WebhookRequest], str]

BODIES: dict[str, Body] = {
    "commit_comment": github_misc.commit_comment,
    "closed_pull_request": github_items.closed_pr,
    "create": partial(github_misc.create_or_delete, "created"),
    "check_run": github_misc.check_run,
    "delete": partial(github_misc.create_or_delete, "deleted"),
    "deployment": github_misc.deployment,
    "deployment_status": github_misc.deployment_status,
    "discussion": github_items.discussion,
    "discussion_comment": github_items.discussion_comment,
    "fork": github_misc.fork,
    "gollum": github_misc.gollum,
    "issue_comment": github_items.issue_comment,
    "issue_labeled_or_unlabeled": github_items.issue_labeled,
    "issue_milestoned_or_demilestoned": github_items.issue_milestoned,
    "issues": github_items.issue,
    "member": github_misc.member,
    "membership": github_misc.membership,
    "opened_pull_request": github_items.opened_or_updated_pr,
    "updated_pull_request": github_items.opened_or_updated_pr,
    "assigned_or_unassigned_pull_request": github_items.assigned_or_unassigned_pr,
    "page_build": github_misc.page_build,
    "ping": github_misc.ping,
    "public": github_misc.public,
    "pull_request_ready_for_review": github_items.ready_for_review,
    "pull_request_review": github_items.review,
    "pull_request_review_comment": github_items.review_comment,
    "pull_request_review_requested": github_items.review_requested,
    "pull_request_auto_merge": github_items.auto_merge,
    "locked_or_unlocked_pull_request": github_items.locked_or_unlocked,
    "push_commits": github_misc.push_commits,
    "push_tags": github_misc.push_tags,
    "release": github_misc.release,
    "repository": github_misc.repository,
    "star": github_misc.star,
    "status": github_misc.status,
    "team": github_misc.team,
    "team_add": github_misc.team_add,
    "watch": github_misc.watch,
}

# Events GitHub sends that Zulip accepts without a message.
IGNORED_EVENTS = {
    "check_suite",
    "label",
    "meta",
    "milestone",
    "organization",
    "project_card",
    "repository_vulnerability_alert",
}
IGNORED_PULL_REQUEST_ACTIONS = {
    "approved",
    "converted_to_draft",
    "labeled",
    "review_request_removed",
    "unlabeled",
}
IGNORED_TEAM_ACTIONS = {"added_to_repository", "created", "deleted", "removed_from_repository"}

_PULL_REQUEST_EVENTS = {
    "opened": "opened_pull_request",
    "reopened": "opened_pull_request",
    "synchronize": "updated_pull_request",
    "edited": "updated_pull_request",
    "assigned": "assigned_or_unassigned_pull_request",
    "unassigned": "assigned_or_unassigned_pull_request",
    "closed": "closed_pull_request",
    "review_requested": "pull_request_review_requested",
    "ready_for_review": "pull_request_ready_for_review",
    "locked": "locked_or_unlocked_pull_request",
    "unlocked": "locked_or_unlocked_pull_request",
    "auto_merge_enabled": "pull_request_auto_merge",
    "auto_merge_disabled": "pull_request_auto_merge",
}


def _push_event(req: WebhookRequest, ref: str) -> str | None:
    if ref.startswith("refs/heads/gh-readonly-queue/"):
        return None  # merge-queue branches: Zulip stays quiet
    if ref.startswith("refs/heads/"):
        branch = github_misc.branch_of(ref)
        return "push_commits" if git.branch_notifiable(branch, req.params.get("branches")) else None
    return "push_tags"


def _pull_request_event(req: WebhookRequest, action: str) -> str | None:
    if action in IGNORED_PULL_REQUEST_ACTIONS:
        return None
    if action in _PULL_REQUEST_EVENTS:
        return _PULL_REQUEST_EVENTS[action]
    raise req.unsupported(f"pull_request:{action}")


def _team_event(req: WebhookRequest, action: str) -> str | None:
    if action == "edited":
        return "team"
    if action in IGNORED_TEAM_ACTIONS:
        return None
    raise req.unsupported(f"unsupported team action {action}")


def _issues_event(action: str) -> str:
    if action in ("labeled", "unlabeled"):
        return "issue_labeled_or_unlabeled"
    if action in ("milestoned", "demilestoned"):
        return "issue_milestoned_or_demilestoned"
    return "issues"


def zulip_event(req: WebhookRequest, header: str, action: str) -> str | None:
    """Zulip's event name for this delivery; None for one it accepts without a message."""
    if header == "pull_request":
        return _pull_request_event(req, action)
    if header == "push":
        return _push_event(req, str(_field(req, "ref")))
    if header == "check_run":
        completed = github_misc.check_run_event(req).check_run
        return header if completed is not None and completed.status == "completed" else None
    if header == "team":
        return _team_event(req, action)
    if header == "issues":
        return _issues_event(action)
    if header in BODIES:
        return header
    if header in IGNORED_EVENTS:
        return None
    raise req.unsupported(f"{header}:{action or '???'}")


def _field(req: WebhookRequest, name: str) -> object:
    return req.payload.get(name, "") if isinstance(req.payload, dict) else ""


def _item_topic(req: WebhookRequest, event: str, repo: str) -> str:
    if "pull_request" in event:
        pr = req.parse(PullRequestEvent).pull_request
        if pr is not None:
            return git.topic_for_item(repo, "PR", pr.number, pr.title)
    else:
        issue = req.parse(IssueEvent).issue
        if issue is not None:
            kind = "PR" if issue.pull_request is not None else "issue"
            return git.topic_for_item(repo, kind, issue.number, issue.title)
    return repo


def topic(req: WebhookRequest, event: str) -> str:
    """Zulip's topic for each kind of event: the item, the branch, or the repository."""
    base = req.parse(BaseEvent)
    repo = github_misc.repo_of(base).name
    if "pull_request" in event or event.startswith("issue"):
        return _item_topic(req, event, repo)
    if event.startswith("deployment"):
        return github_misc.deployment_topic(req)
    elif event == "membership":
        return f"{base.organization.login if base.organization else ''} organization"
    elif event == "team":
        team = req.parse(github_misc.MemberEvent).team
        return f"team {team.name if team else ''}"
    elif event == "push_commits":
        return git.topic_for_branch(repo, github_misc.branch_of(str(_field(req, "ref"))))
    elif event == "gollum":
        return git.topic_for_branch(repo, "wiki pages")
    elif event == "ping" and base.repository is None and base.organization is not None:
        return base.organization.login
    elif event == "check_run":
        return f"{repo} / checks"
    elif event.startswith("discussion"):
        return github_items.discussion_topic(req, repo)
    return repo


def format_github(req: WebhookRequest) -> Notice | None:
    header = req.header("X-GitHub-Event")
    action = str(_field(req, "action"))
    base = req.parse(BaseEvent)
    private = base.repository is not None and base.repository.private
    if private and req.flag("ignore_private_repositories"):
        return None
    event = zulip_event(req, header, action)
    if event is None:
        return None
    return Notice(topic=topic(req, event), body=BODIES[event](req), event=event)


INTEGRATION = Integration(
    name="github",
    display_name="GitHub",
    format=format_github,
    events=tuple(BODIES),
)

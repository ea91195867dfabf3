"""GitLab: the X-Gitlab-Event header ("Push Hook", "Merge Request Hook"...) refined by the
payload's action or noteable type into Zulip's event names. Pure."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial

from teamchat.actions.integrations.webhooks import git
from teamchat.actions.integrations.webhooks.base import Integration, Notice, WebhookRequest
from teamchat.actions.integrations.webhooks.gitlab_shapes import Item, Payload

Body = Callable[[Payload], str]

_HIDDEN_COMMENT_RE = re.compile(r"<!--.*?-->", re.DOTALL)


def repo_name(p: Payload) -> str:
    return p.project.name if p.project is not None else p.repository.name


def homepage(p: Payload) -> str:
    return p.project.web_url if p.project is not None else p.repository.homepage


def branch(ref: str) -> str:
    return ref.replace("refs/heads/", "")


def _assignees(p: Payload) -> list[str]:
    people = p.assignees or ([p.assignee] if p.assignee else [])
    return [person.name for person in people]


def push(p: Payload) -> str:
    if p.after == git.EMPTY_SHA:
        return git.remove_branch_message(p.user_name, branch(p.ref))
    compare = f"{homepage(p)}/-/compare/{p.before}...{p.after}"
    commits = [git.Commit(c.author.name, c.id, c.url, c.message) for c in p.commits]
    return git.push_message(p.user_name, compare, branch(p.ref), commits)


def tag_push(p: Payload) -> str:
    tag = p.ref.replace("refs/tags/", "")
    return git.tag_message(p.user_name, tag, action="pushed" if p.checkout_sha else "removed")


def test_hook(p: Payload) -> str:
    return f"Webhook for **{repo_name(p)}** has been configured successfully! :tada:"


def issue_created(title: str | None, p: Payload) -> str:
    attrs = p.object_attributes
    description = attrs.description
    if description:
        description = _HIDDEN_COMMENT_RE.sub("", description).rstrip()
    return git.item_message(
        user=p.user.name, action="created", url=attrs.url, number=attrs.iid, kind="issue",
        message=description or None, assignees=_assignees(p), title=title,
    )  # fmt: skip


def issue_changed(action: str, title: str | None, p: Payload) -> str:
    attrs = p.object_attributes
    return git.item_message(
        user=p.user.name, action=action, url=attrs.url, number=attrs.iid, kind="issue", title=title
    )


def merge_request(action: str, title: str | None, p: Payload) -> str:
    attrs = p.object_attributes
    merged = action == "merged"
    return git.item_message(
        user=p.user.name, action=action, url=attrs.url, number=attrs.iid, kind="MR", title=title,
        target_branch=attrs.source_branch if merged else None,
        base_branch=attrs.target_branch if merged else None,
    )  # fmt: skip


def merge_request_opened_or_updated(action: str, title: str | None, p: Payload) -> str:
    attrs = p.object_attributes
    created = action == "created"
    return git.item_message(
        user=p.user.name, action=action, url=attrs.url, number=attrs.iid, kind="MR", title=title,
        target_branch=attrs.source_branch if created else None,
        base_branch=attrs.target_branch if created else None,
        message=attrs.description, assignees=_assignees(p),
    )  # fmt: skip


def merge_request_updated(title: str | None, p: Payload) -> str:
    if p.object_attributes.oldrev:
        return merge_request("added commit(s) to", title, p)
    return merge_request_opened_or_updated("updated", title, p)


def _note_on(kind: str, item: Item | None, url: str | None, title: str | None, p: Payload) -> str:
    attrs = p.object_attributes
    item = item or Item()
    number = item.id if kind == "snippet" else item.iid
    return git.item_message(
        user=p.user.name, action=f"[commented]({attrs.url}) on", url=url or "", number=number,
        message=attrs.note, kind=kind, title=title,
    )  # fmt: skip


def note_commit(p: Payload) -> str:
    commit = p.commit
    return git.commit_comment_message(
        p.user.name,
        f"[commented]({p.object_attributes.url})",
        commit.url if commit else "",
        commit.id if commit else "",
        p.object_attributes.note,
    )


def note_merge_request(title: str | None, p: Payload) -> str:
    item = p.merge_request
    return _note_on("MR", item, item.url if item else None, title, p)


def note_issue(title: str | None, p: Payload) -> str:
    item = p.issue
    return _note_on("issue", item, item.url if item else None, title, p)


def note_snippet(title: str | None, p: Payload) -> str:
    item = p.snippet or Item()
    url = item.url or f"{homepage(p)}/-/snippets/{item.id}"
    return _note_on("snippet", item, url, title, p)


def _design(p: Payload) -> tuple[str, str, str]:
    """(comment url, design url, design name) from the note's design path."""
    path = p.object_attributes.position.new_path if p.object_attributes.position else ""
    parts = path.split("/")
    name = parts[-1]
    issue_number = parts[-2].split("-")[-1] if len(parts) >= 2 else ""
    design_url = f"{p.repository.homepage}/-/issues/{issue_number}/designs/{name}"
    return f"{design_url}#note_{p.object_attributes.id}", design_url, name


def note_design(p: Payload) -> str:
    comment_url, design_url, name = _design(p)
    return (
        f"{p.user.name} [commented]({comment_url}) on design [{name}]({design_url}):\n"
        f"{git.quote(p.object_attributes.note)}"
    )


def wiki_page(action: str, p: Payload) -> str:
    attrs = p.object_attributes
    return f'{p.user.name} {action} [wiki page "{attrs.title}"]({attrs.url}).'


def _status_action(status: str, first: str) -> str:
    if status == first:
        return "was created"
    if status == "running":
        return "started"
    return f"changed status to {status}"


def build(p: Payload) -> str:
    action = _status_action(p.build_status, "created")
    return f"Build {p.build_name} from {p.build_stage} stage {action}."


def pipeline(p: Payload) -> str:
    attrs = p.object_attributes
    home = homepage(p)
    rows = ""
    for job in p.builds:
        url = f"{home}/-/jobs/{job.id}"
        rows += f"* [{job.name}]({url}) - {job.status}\n"
        if job.artifacts_file.filename:
            rows += (
                f"  * built artifact: *{job.artifacts_file.filename}* "
                f"[[Browse]({url}/artifacts/browse)|[Download]({url}/artifacts/download)]\n"
            )
    action = _status_action(attrs.status, "pending")
    return (
        f"[Pipeline ({attrs.id})]({home}/-/pipelines/{attrs.id}) {action} with build(s):\n"
        f"{rows[:-1]}."
    )


def release(p: Payload) -> str:
    done = f"{p.action}d"
    tag = p.tag if isinstance(p.tag, str) else ""
    if p.action == "delete":
        return f"Release {p.name} for tag {tag} was {done}."
    text = f"Release [{p.name}]({p.url}) for tag {tag} was {done}."
    return text + git.quote(p.description) if p.description is not None else text


def feature_flag(p: Payload) -> str:
    attrs = p.object_attributes
    action = "activated" if attrs.active else "deactivated"
    url = f"{p.project.web_url if p.project else ''}/-/feature_flags"
    return f"{p.user.username} {action} the feature flag [{attrs.name}]({url})."


def access_token(p: Payload) -> str:
    attrs = p.object_attributes
    try:
        date = datetime.strptime(attrs.expires_at, "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError:
        return f"The access token [{attrs.name}] will expire on {attrs.expires_at}."
    if p.group is not None:
        url = f"https://gitlab.com/groups/{p.group.group_path}/-/settings/access_tokens"
    else:
        url = f"{p.project.web_url if p.project else ''}/-/settings/access_tokens"
    return f"The access token [{attrs.name}]({url}) will expire on {date:%b %d, %Y}."


def deployment(p: Payload) -> str:
    user = f"[{p.user.name}]({p.user_url})"
    what = f"[deployment]({p.deployable_url})" if p.deployable_url else "deployment"
    sha = p.commit_url.split("/")[-1][:7]
    texts = {
        "running": f"{user} started a new {what}:\n> [{sha}]({p.commit_url}) {p.commit_title}",
        "success": f"The {what} was successful.",
        "failed": f"The {what} failed.",
        "canceled": f"The {what} was canceled.",
    }
    return texts.get(p.status, f"The {what} changed status to {p.status}.")


# Bodies that add the item's title when the URL pins the topic take (title, payload).
Titled = Callable[[str | None, Payload], str]

TITLED: dict[str, Titled] = {
    "Issue Hook open": issue_created,
    "Issue Hook close": partial(issue_changed, "closed"),
    "Issue Hook reopen": partial(issue_changed, "reopened"),
    "Issue Hook update": partial(issue_changed, "updated"),
    "Note Hook MergeRequest": note_merge_request,
    "Note Hook Issue": note_issue,
    "Note Hook Snippet": note_snippet,
    "Merge Request Hook approved": partial(merge_request, "approved"),
    "Merge Request Hook unapproved": partial(merge_request, "unapproved"),
    "Merge Request Hook approval": partial(merge_request, "approval"),
    "Merge Request Hook unapproval": partial(merge_request, "unapproval"),
    "Merge Request Hook open": partial(merge_request_opened_or_updated, "created"),
    "Merge Request Hook update": merge_request_updated,
    "Merge Request Hook merge": partial(merge_request, "merged"),
    "Merge Request Hook close": partial(merge_request, "closed"),
    "Merge Request Hook reopen": partial(merge_request, "reopened"),
}
for _kind in ("open", "close", "reopen", "update"):
    TITLED[f"Confidential Issue Hook {_kind}"] = TITLED[f"Issue Hook {_kind}"]
TITLED["Confidential Note Hook Issue"] = note_issue

BODIES: dict[str, Body] = {
    "Push Hook": push,
    "Tag Push Hook": tag_push,
    "Test Hook": test_hook,
    "Note Hook Commit": note_commit,
    "Note Hook DesignManagement::Design": note_design,
    "Confidential Note Hook DesignManagement::Design": note_design,
    "Wiki Page Hook create": partial(wiki_page, "created"),
    "Wiki Page Hook update": partial(wiki_page, "updated"),
    "Job Hook": build,
    "Build Hook": build,
    "Pipeline Hook": pipeline,
    "Release Hook": release,
    "Feature Flag Hook": feature_flag,
    "Resource Access Token Hook": access_token,
    "Deployment Hook": deployment,
}


def _item_title(event: str, p: Payload) -> str:
    if event.startswith("Note Hook MergeRequest"):
        return p.merge_request.title if p.merge_request else ""
    if "Note Hook Issue" in event:
        return p.issue.title if p.issue else ""
    if event.startswith("Note Hook Snippet"):
        return p.snippet.title if p.snippet else ""
    return p.object_attributes.title


def body(event: str, p: Payload, include_title: bool) -> str:
    if event in TITLED:
        return TITLED[event](_item_title(event, p) if include_title else None, p)
    return BODIES[event](p)


def _item_topic(repo: str, kind: str, number: int, title: str) -> str:
    return git.topic_for_item(repo, kind, number, title)


def topic(event: str, p: Payload, use_mr_title: bool) -> str:
    """Zulip's topic: the branch for pushes and CI, the item for issues, MRs and notes."""
    repo = repo_name(p)
    attrs = p.object_attributes
    if event == "Push Hook":
        return f"{repo} / {branch(p.ref)}"
    if event in ("Job Hook", "Build Hook"):
        return f"{p.repository.name} / {branch(p.ref)}"
    if event == "Pipeline Hook":
        return f"{repo} / {branch(attrs.ref)}"
    if event.startswith("Merge Request Hook"):
        return _item_topic(repo, "MR", attrs.iid, attrs.title if use_mr_title else "")
    if event.startswith(("Issue Hook", "Confidential Issue Hook")):
        return _item_topic(repo, "issue", attrs.iid, attrs.title)
    if event in ("Note Hook Issue", "Confidential Note Hook Issue"):
        item = p.issue or Item()
        return _item_topic(repo, "issue", item.iid, item.title)
    if event.endswith("Note Hook DesignManagement::Design"):
        return f"{repo} / design {_design(p)[2]}"
    if event == "Note Hook MergeRequest":
        item = p.merge_request or Item()
        return _item_topic(repo, "MR", item.iid, item.title if use_mr_title else "")
    if event == "Note Hook Snippet":
        item = p.snippet or Item()
        return _item_topic(repo, "snippet", item.id, item.title)
    if event == "Resource Access Token Hook" and p.group is not None:
        return p.group.group_name
    if event == "Deployment Hook":
        return f"{repo} / {p.environment}"
    return repo


def zulip_event(req: WebhookRequest, p: Payload) -> str | None:
    """The header refined by action or noteable type; None for a branch not listed."""
    event = req.header("X-GitLab-Event")
    if event == "System Hook":
        name = p.event_name or p.object_kind
        event = f"{name.split('__')[0].replace('_', ' ').title()} Hook"
    if event in ("Confidential Issue Hook", "Issue Hook", "Merge Request Hook", "Wiki Page Hook"):
        event = f"{event} {p.object_attributes.action or 'open'}"
    elif event in ("Confidential Note Hook", "Note Hook"):
        event = f"{event} {p.object_attributes.noteable_type}"
    elif event == "Push Hook" and not git.branch_notifiable(
        branch(p.ref), req.params.get("branches")
    ):
        return None
    if event in TITLED or event in BODIES:
        return event
    raise req.unsupported(event)


def format_gitlab(req: WebhookRequest) -> Notice | None:
    p = req.parse(Payload)
    event = zulip_event(req, p)
    if event is None:
        return None
    text = body(event, p, req.user_specified_topic)
    if req.user_specified_topic:
        text = f"[[{repo_name(p)}]({homepage(p)})] {text}"
    use_mr_title = req.params.get("use_merge_request_title", "true").strip().lower() != "false"
    return Notice(topic=topic(event, p, use_mr_title), body=text, event=event)


INTEGRATION = Integration(
    name="gitlab",
    display_name="GitLab",
    format=format_gitlab,
    events=(*TITLED, *BODIES),
)

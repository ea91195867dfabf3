// node --test: the Integrations page's URLs, new bots' names and the notices that name a bot.
import assert from "node:assert/strict";
import { test } from "node:test";

import { freshBotName, integrationUrl, shortNameOf } from "../../teamchat/web/static/js/views/integrations.js";
import { myWebhookBots, noticesAbout, otherNotices } from "../../teamchat/web/static/js/views/integrations_notices.js";

test("the URL names the integration, the key, the channel by id and the topic", () => {
  assert.equal(
    integrationUrl("https://chat.example.com", "github", "abc123", 7, "our repo & more"),
    "https://chat.example.com/api/v1/external/github?api_key=abc123&stream=7&topic=our+repo+%26+more",
  );
  assert.equal(integrationUrl("http://x", "json", "k", 7, ""), "http://x/api/v1/external/json?api_key=k&stream=7");
  assert.equal(
    integrationUrl("http://x", "github", "k", 7, "", ["push_commits", "issues"]),
    "http://x/api/v1/external/github?api_key=k&stream=7&only_events=%5B%22push_commits%22%2C%22issues%22%5D",
  );
  assert.equal(
    integrationUrl("http://x", "gitlab", "k", 7, "", [], { branches: "main,dev" }),
    "http://x/api/v1/external/gitlab?api_key=k&stream=7&branches=main%2Cdev",
  );
  // No channel: the bot sends its owner a direct message, and a topic means nothing.
  assert.equal(integrationUrl("http://x", "sentry", "k", null, "ignored"), "http://x/api/v1/external/sentry?api_key=k");
});

test("a new bot gets a name and an email nobody has", () => {
  const users = [
    { full_name: "Ada", email: "ada@example.com" },
    { full_name: "GitHub Bot", email: "github-bot@example.com" },
  ];
  assert.equal(freshBotName("GitLab", users, "example.com"), "GitLab Bot");
  assert.equal(freshBotName("GitHub", users, "example.com"), "GitHub Bot 2");
  // The name is free but the email it would get is not.
  assert.equal(freshBotName("GitHub", [{ full_name: "Other", email: "github-bot@example.com" }], "example.com"), "GitHub Bot 2");
  assert.equal(shortNameOf("GitHub Bot"), "github");
  assert.equal(shortNameOf("GitHub Bot 2"), "github-2");
  assert.equal(shortNameOf("Slack-compatible webhook Bot"), "slack-compatible-webhook");
  assert.equal(shortNameOf("Bot"), "webhook");
  assert.equal(shortNameOf("Robot deploys"), "robot-deploys");
});

test("my incoming-webhook bots, and the notices that name one of them", () => {
  const users = new Map([
    [1, { user_id: 1, full_name: "Me", is_bot: false }],
    [2, { user_id: 2, full_name: "GitHub Bot", email: "github-bot@x", is_bot: true, bot_type: 2, bot_owner_id: 1 }],
    [3, { user_id: 3, full_name: "Generic", email: "g-bot@x", is_bot: true, bot_type: 1, bot_owner_id: 1 }],
    [4, { user_id: 4, full_name: "Theirs", email: "t-bot@x", is_bot: true, bot_type: 2, bot_owner_id: 9 }],
  ]);
  assert.deepEqual(myWebhookBots({ users, myId: 1 }).map((bot) => bot.user_id), [2]);
  const bot = users.get(2);
  const messages = [
    { id: 10, text: "Your bot `github-bot@x` tried to send a message to channel #**nope**" },
    { id: 11, text: "Hi there!  Your bot GitHub Bot just sent an HTTP request" },
    { id: 12, text: "Your bot GitHub Bot 2 just sent an HTTP request" },
    { id: 13, text: "You were subscribed to #**general**" },
  ];
  assert.deepEqual(noticesAbout(bot, messages).map((notice) => notice.id), [11, 10]);
  const notJson = { id: 14, text: "It looks like you tried to set up the Zulip Sentry integration" };
  assert.deepEqual(otherNotices([bot], [...messages, notJson]).map((notice) => notice.id), [14]);
});

// The live verdict on a new password (sign-up and password reset pages): as the person types,
// ask the server what zxcvbn thinks (POST /accounts/password/strength/) and show its score,
// warning and suggestions. The server applies the same rules when the form is sent.

const DELAY_MS = 250;
const VERDICTS = ["Very weak", "Weak", "Fair", "Strong", "Very strong"];

function show(box, answer) {
  const meter = box.querySelector("meter");
  const verdict = box.querySelector(".strength-verdict");
  const advice = box.querySelector(".strength-advice");
  meter.value = answer.score + 1; // a sliver even for the weakest
  const words = answer.acceptable
    ? `${VERDICTS[answer.score]}: good enough`
    : answer.problem || `${VERDICTS[answer.score]}: too weak`;
  verdict.textContent = words;
  verdict.className = `strength-verdict ${answer.acceptable ? "ok" : "weak"}`;
  const lines = [answer.warning, ...answer.suggestions].filter(Boolean);
  advice.replaceChildren(...lines.map((line) => Object.assign(document.createElement("li"), { textContent: line })));
  box.hidden = false;
}

async function judge(password) {
  const response = await fetch("/accounts/password/strength/", {
    method: "POST",
    body: new URLSearchParams({ password }),
    credentials: "same-origin",
  });
  if (!response.ok) return null;
  return response.json();
}

function watch(input) {
  const box = document.getElementById(input.dataset.strength);
  if (!box) return;
  let timer = null;
  let latest = 0;
  input.addEventListener("input", () => {
    clearTimeout(timer);
    if (!input.value) {
      box.hidden = true;
      return;
    }
    timer = setTimeout(async () => {
      const asked = ++latest;
      const answer = await judge(input.value).catch(() => null);
      if (answer && asked === latest) show(box, answer);
    }, DELAY_MS);
  });
}

for (const input of document.querySelectorAll("input[data-strength]")) watch(input);

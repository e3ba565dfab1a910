// Sign-in, the tabs, and the views wired to their forms.
import { gql, token } from "./graphql.js";
import { answerView } from "./answer.js";
import { evaluationView } from "./evaluation.js";
import { graphView } from "./graph.js";
import { herbView } from "./herb.js";
import { progressView } from "./progress.js";
import { searchView } from "./search.js";

const $ = (selector) => document.querySelector(selector);

function show(name) {
  for (const view of document.querySelectorAll(".view")) view.hidden = view.id !== `view-${name}`;
  for (const tab of document.querySelectorAll("nav button")) {
    if (tab.dataset.view === name) tab.setAttribute("aria-current", "page");
    else tab.removeAttribute("aria-current");
  }
}

// Opens a view with its form filled in and submitted (a search hit opens its herb card).
function open(name, values) {
  show(name);
  const form = $(`#view-${name} form`);
  for (const [field, value] of Object.entries(values)) form.elements[field].value = value;
  form.requestSubmit();
}

function signedIn(yes) {
  $("#login").hidden = yes;
  $("#app").hidden = !yes;
  $("#logout").hidden = !yes;
}

async function signIn(value) {
  token.set(value);
  try {
    await gql("{ __typename }");
    $("#login-error").textContent = "";
    signedIn(true);
  } catch (error) {
    token.clear();
    signedIn(false);
    $("#login-error").textContent = error.message;
  }
}

$("#login").addEventListener("submit", (event) => {
  event.preventDefault();
  signIn($("#token").value.trim());
  $("#token").value = "";
});
$("#logout").addEventListener("click", () => {
  token.clear();
  signedIn(false);
});
for (const tab of document.querySelectorAll("nav button")) tab.addEventListener("click", () => show(tab.dataset.view));

const context = { open };
searchView(context);
answerView(context);
graphView(context);
herbView(context);
progressView(context);
evaluationView(context);
show("search");
if (token.get()) signIn(token.get());

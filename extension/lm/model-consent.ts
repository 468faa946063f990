// Before an LLM node's first request to one of the editor's chat models, Attractor asks the person
// once per model provider whether it may send the pipeline's prompts, file contents and tool
// results there. VS Code itself asks only for providers that require it (GitHub Copilot's models,
// with the justification each request carries); every other provider would be used unasked.
import * as vscode from 'vscode';

/** Resolves true when LLM nodes may use `model`. */
export type ModelConsent = (model: vscode.LanguageModelChat) => Promise<boolean>;

const ALLOW = 'Allow';

/** Asks once per provider (vendor); an allowed provider is remembered in `memento`, a refusal asks again next time. */
export function askedModelConsent(memento: vscode.Memento): ModelConsent {
  const asking = new Map<string, Promise<boolean>>();
  return async (model) => {
    const key = `attractor.lmConsent.${model.vendor}`;
    if (memento.get<boolean>(key) === true) return true;
    // Parallel branches reaching their first request together see one question.
    let answer = asking.get(model.vendor);
    if (!answer) {
      answer = ask(model).then(async (allowed) => {
        if (allowed) await memento.update(key, true);
        asking.delete(model.vendor);
        return allowed;
      });
      asking.set(model.vendor, answer);
    }
    return answer;
  };
}

async function ask(model: vscode.LanguageModelChat): Promise<boolean> {
  const choice = await vscode.window.showWarningMessage(
    `Let Attractor run LLM nodes on ${model.name} (${model.vendor})?`,
    {
      modal: true,
      detail: `The pipeline's prompts, the files its nodes read and the output of the commands they run are sent to this model, and its answers write files and run commands in the workspace. Asked once for every model from ${model.vendor}.`,
    },
    ALLOW,
  );
  return choice === ALLOW;
}

// A Bedside sheet: a modal <dialog> named by its first heading, gone from the page once closed.

/** Shows a sheet of `html` (with an <h2>) as a modal dialog; `className`'s first word names its heading when it has no id. */
export function openSheet(className, html) {
  const dialog = document.createElement("dialog");
  dialog.className = `dialog bs-sheet ${className}`;
  dialog.innerHTML = html;
  const heading = dialog.querySelector("h2");
  heading.id = heading.id || `bs-sheet-${className.split(" ")[0]}`;
  dialog.setAttribute("aria-labelledby", heading.id);
  document.body.append(dialog);
  dialog.addEventListener("close", () => dialog.remove());
  dialog.showModal();
  return dialog;
}

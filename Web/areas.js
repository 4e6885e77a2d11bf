// The five areas of Reverie and the Settings screen: names, paths, icons, and for areas not built
// yet what is coming.
// Icons are our own simple strokes on a 24×24 grid, the play and pause shapes among them.

export const AREAS = [
  {
    id: "bedside", path: "/bedside", name: "Bedside",
    icon: "M4 20h16M6 20v-3a2 2 0 0 1 2-2h8a2 2 0 0 1 2 2v3M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8Zm0-6v2l1.2 1.2",
  },
  {
    id: "meditate", path: "/meditate", name: "Meditate",
    icon: "M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18Zm0-5a4 4 0 1 0 0-8 4 4 0 0 0 0 8Z",
  },
  {
    id: "wind-down", path: "/wind-down", name: "Wind Down",
    icon: "M18 15.5A7.5 7.5 0 0 1 8.5 6a7.5 7.5 0 1 0 9.5 9.5ZM14 3h4l-4 4h4M19 9h2.5L19 11.5h2.5",
    accent: "#6366F1",
    tagline: "A library for falling asleep.",
  },
  {
    id: "listen", path: "/listen", name: "Listen",
    icon: "M4 15v-3a8 8 0 0 1 16 0v3M4 15a2 2 0 0 1 2-2h1v7H6a2 2 0 0 1-2-2v-3Zm16 0a2 2 0 0 0-2-2h-1v7h1a2 2 0 0 0 2-2v-3Z",
    tagline: "Music and speech at the same time.",
  },
  {
    id: "write", path: "/write", name: "Write",
    icon: "M4 20h4L19 9a2.8 2.8 0 0 0-4-4L4 16v4Zm9.5-13.5 4 4",
  },
];

export const SETTINGS = {
  id: "settings", path: "/settings", name: "Settings",
  icon: "M12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6Zm7.4-3a7.4 7.4 0 0 0-.1-1.2l2-1.6-2-3.4-2.4 1a7.4 7.4 0 0 0-2-1.2L14.5 3h-5l-.4 2.6a7.4 7.4 0 0 0-2 1.2l-2.4-1-2 3.4 2 1.6a7.4 7.4 0 0 0 0 2.4l-2 1.6 2 3.4 2.4-1a7.4 7.4 0 0 0 2 1.2l.4 2.6h5l.4-2.6a7.4 7.4 0 0 0 2-1.2l2.4 1 2-3.4-2-1.6c.1-.4.1-.8.1-1.2Z",
};

/** The play and pause shapes every player's button draws (Wind Down's player, Listen's bars and now-playing view). */
export const PLAY_ICON = "M8 5v14l11-7Z";
export const PAUSE_ICON = "M7 5h4v14H7zM13 5h4v14h-4z";

/** An inline SVG icon from a path on a 24×24 grid. */
export function icon(path, size = 24) {
  return `<svg class="icon" width="${size}" height="${size}" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="${path}"/></svg>`;
}

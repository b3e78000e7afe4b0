//! Stage: application state — live updates. While `perf script | flametui -` is still
//! streaming, newer snapshots of the profile replace the tree on screen; what the user is
//! looking at (zoom, selection, search, orientation) is carried over by stack path, since
//! node ids change from one tree to the next.

use super::explorer::Explorer;
use super::transforms::TransformStack;
use crate::profile::diff::{find_path, path_names};
use crate::profile::{NodeId, Profile};
use crate::view::{Target, Viewport};

impl Explorer {
    /// Shows `profile` (a newer snapshot of the same input) in place of the current one.
    pub fn replace_profile(&mut self, profile: Profile, view: &TransformStack) {
        let tree = &self.profile.tree;
        let path_of = |id: NodeId| -> Vec<String> {
            path_names(tree, id)
                .into_iter()
                .map(str::to_owned)
                .collect()
        };
        let selected = match self.selected {
            Target::Frame(id) => Some(path_of(id)),
            Target::Span { .. } => None,
        };
        let zoom = (self.zoom.is_frame(&self.index) && self.zoom.root != NodeId::ROOT)
            .then(|| path_of(self.zoom.root));
        let mut fresh = Explorer::with_view(profile, view);
        fresh.flame = self.flame;
        fresh.scroll = self.scroll;
        fresh.search.query = std::mem::take(&mut self.search.query);
        fresh.search.ignore_case = self.search.ignore_case;
        let tree = &fresh.profile.tree;
        if let Some(id) = zoom.and_then(|p| find_path(tree, &p)) {
            fresh.zoom = Viewport::frame(&fresh.index, id);
        }
        if let Some(id) = selected.and_then(|p| find_path(tree, &p)) {
            fresh.selected = Target::Frame(id);
        }
        *self = fresh;
        self.run_search();
    }
}

#[cfg(test)]
mod tests {
    use crate::app::{Action, App, Dir, Phase, update};
    use crate::input::{LoadOptions, load_reader};
    use crate::profile::Profile;
    use crate::view::Target;
    use crate::view::color::ColorMode;

    fn profile(text: &str) -> Box<Profile> {
        Box::new(
            load_reader(text.as_bytes(), "-", &LoadOptions::default())
                .unwrap()
                .main()
                .clone(),
        )
    }

    fn selected_path(app: &App) -> String {
        let ex = app.explorer().unwrap();
        match ex.selected {
            Target::Frame(id) => ex.profile.tree.path_string(id),
            Target::Span { .. } => "span".to_owned(),
        }
    }

    #[test]
    fn snapshots_replace_the_tree_and_keep_selection_zoom_and_search() {
        let mut app = App::loading("<stdin>", ColorMode::Mono);
        update(&mut app, Action::Resize(80, 24));
        update(
            &mut app,
            Action::Snapshot(profile("main;read 5\nmain;parse;lex 3\n")),
        );
        assert!(matches!(app.phase, Phase::Ready(_)) && app.streaming.is_some());
        for a in [
            Action::Move(Dir::Down),
            Action::Move(Dir::Down),
            Action::Zoom,
        ] {
            update(&mut app, a);
        }
        for c in "lex".chars() {
            update(&mut app, Action::SearchType(c));
        }
        assert_eq!(selected_path(&app), "main;read");
        // A newer snapshot: more samples, a new branch; the view carries over by path.
        update(
            &mut app,
            Action::Snapshot(profile("main;read 9\nmain;parse;lex 7\nmain;zip 2\n")),
        );
        let ex = app.explorer().unwrap();
        assert_eq!(ex.profile.tree.total(), 18);
        assert_eq!(selected_path(&app), "main;read");
        assert_eq!(ex.profile.tree.path_string(ex.zoom.root), "main;read");
        assert!(ex.search.matches.as_ref().is_some_and(|m| !m.is_empty()));
        // Frozen: newer snapshots wait; resuming shows the newest.
        update(&mut app, Action::ToggleFreeze);
        update(&mut app, Action::Snapshot(profile("main;read 20\n")));
        assert_eq!(app.explorer().unwrap().profile.tree.total(), 18);
        update(
            &mut app,
            Action::Loaded(profile("main;read 30\nmain;zip 3\n")),
        );
        assert_eq!(app.explorer().unwrap().profile.tree.total(), 18);
        assert!(app.streaming.is_none());
        update(&mut app, Action::ToggleFreeze);
        assert_eq!(app.explorer().unwrap().profile.tree.total(), 33);
        assert_eq!(selected_path(&app), "main;read");
    }
}

pub mod symex;
